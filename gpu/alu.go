package gpu

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/everycycle/appraise/schema"
)

// ALUKernel is one row of the vector-ALU table: what a kernel computes and
// how its operations are counted. The table drives the ops/s formula, the
// OpCounting string of every result and the docs.
type ALUKernel struct {
	// Name is the kernel's name in results, e.g. "fp32-fma".
	Name string
	// File and Entry are its WGSL file (package wgsl, no extension) and
	// entry point.
	File, Entry string
	// Operation is the kind of work: "fma" (floating-point fused
	// multiply-add), "mad" (integer multiply-add), "dot4" (4-wide dot
	// product accumulated).
	Operation string
	// InputType and AccumulatorType name the operand and result types:
	// "fp32", "fp16", "int32", "int8", "uint8", "uint32".
	InputType, AccumulatorType string
	// Counted is the WGSL operation the table counts.
	Counted string
	// Lanes is how many lanes one counted operation has.
	Lanes int
	// OpsPerLane is the operations one lane of it counts for.
	OpsPerLane int
	// Chains is the number of independent dependency chains per invocation.
	Chains int
	// PerTrip is the counted operations each chain runs per loop trip.
	PerTrip int
	// Needs names what the device and WGSL compiler must support beyond
	// core WGSL, or "" when nothing.
	Needs string

	// kind selects the kernel's uniform and CPU reference (alu_ref.go).
	kind aluKind
}

// OpsPerOperation is the operations one counted WGSL operation counts for:
// Lanes * OpsPerLane.
func (k ALUKernel) OpsPerOperation() uint64 { return uint64(k.Lanes * k.OpsPerLane) }

// OpCounting is the counting rule as results state it: operation=ops per
// lane, e.g. "fma=2" or "dot4=8".
func (k ALUKernel) OpCounting() string { return fmt.Sprintf("%s=%d", k.Operation, k.OpsPerLane) }

// Features an ALU kernel may need (ALUKernel.Needs).
const (
	needF16  = "shader-f16"
	needDot4 = "packed_4x8_integer_dot_product"
)

// ALUKernels returns the op-counting table, in the order the probe runs the
// kernels. Operations are counted the way mixbench and vendor datasheets
// count them: a fused multiply-add is 2 operations per lane, an integer
// multiply-add a*b+c is 2, and a 4-wide 8-bit dot product accumulated into
// 32 bits is 8 (4 multiplies and 4 adds, the accumulate being the fourth):
//
//	kernel      counted WGSL operation             lanes  ops/lane  ops/op  chains  per trip
//	fp32-fma    fma(x, a, b) on vec4<f32>          4      2         8       8       16
//	fp16-fma    fma(x, a, b) on vec4<f16>          4      2         8       8       16
//	int32-mad   x*a + y on vec4<i32>               4      2         8       4       16
//	int8-dot4   dot4I8Packed(b, w) + a  (i32)      1      8         8       16      8
//	uint8-dot4  dot4U8Packed(b, w) + a  (u32)      1      8         8       16      8
//
// One dispatch counts invocations * chains * trips * per trip * ops/op
// operations. fp16 needs the shader-f16 feature and a WGSL compiler with
// `enable f16;`; the dot products need a compiler with the
// packed_4x8_integer_dot_product built-ins (where the hardware has no
// packed dot-product instruction the driver emulates them, and the figure
// measures the emulation). A kernel whose needs are not met is skipped
// with the reason.
func ALUKernels() []ALUKernel {
	return []ALUKernel{
		{Name: "fp32-fma", File: "alu_f32", Entry: "alu_f32", Operation: "fma", InputType: "fp32", AccumulatorType: "fp32",
			Counted: "fma(x, a, b) on vec4<f32>", Lanes: 4, OpsPerLane: 2, Chains: 8, PerTrip: 16, kind: aluF32},
		{Name: "fp16-fma", File: "alu_f16", Entry: "alu_f16", Operation: "fma", InputType: "fp16", AccumulatorType: "fp16",
			Counted: "fma(x, a, b) on vec4<f16>", Lanes: 4, OpsPerLane: 2, Chains: 8, PerTrip: 16, Needs: needF16, kind: aluF16},
		{Name: "int32-mad", File: "alu_i32", Entry: "alu_i32", Operation: "mad", InputType: "int32", AccumulatorType: "int32",
			Counted: "x*a + y on vec4<i32>", Lanes: 4, OpsPerLane: 2, Chains: 4, PerTrip: 16, kind: aluI32},
		{Name: "int8-dot4", File: "alu_dot4", Entry: "alu_dot4_i8", Operation: "dot4", InputType: "int8", AccumulatorType: "int32",
			Counted: "dot4I8Packed(b, w) + a", Lanes: 1, OpsPerLane: 8, Chains: 16, PerTrip: 8, Needs: needDot4, kind: aluDotI8},
		{Name: "uint8-dot4", File: "alu_dot4", Entry: "alu_dot4_u8", Operation: "dot4", InputType: "uint8", AccumulatorType: "uint32",
			Counted: "dot4U8Packed(b, w) + a", Lanes: 1, OpsPerLane: 8, Chains: 16, PerTrip: 8, Needs: needDot4, kind: aluDotU8},
	}
}

// ALUResult is one kernel's measured vector-ALU throughput.
type ALUResult struct {
	// Kernel names the row of ALUKernels.
	Kernel string
	// Operation, InputType and AccumulatorType are the row's.
	Operation, InputType, AccumulatorType string
	// OpCounting is the row's counting rule, e.g. "fma=2".
	OpCounting string
	// OpsPerS is OpsPerDispatch*DispatchesPerSample over each sample's
	// time, in operations/s.
	OpsPerS schema.Stat
	// Timing says how the samples were timed.
	Timing schema.TimingMethod
	// Invocations is the number of invocations per dispatch.
	Invocations uint64
	// ChainsPerInvocation is the number of independent chains each runs.
	ChainsPerInvocation uint64
	// Iterations is the number of dependent counted operations each chain
	// runs per dispatch (loop trips times the row's PerTrip).
	Iterations uint64
	// DispatchesPerSample is the number of dispatches in one timed sample.
	DispatchesPerSample int
	// Checked is the number of invocations whose output was compared with
	// the CPU reference; each output folds all its chains and lanes.
	Checked uint64
	// MaxError is the largest error the check saw; Tolerance the error it
	// allowed. Both are 0: every kernel is checked exactly.
	MaxError, Tolerance float64
	// ErrorKind is "exact".
	ErrorKind string
}

// ALUSkip says why a kernel of the table was not measured on this device.
type ALUSkip struct {
	// Kernel names the row of ALUKernels.
	Kernel string
	// Operation and InputType are the row's.
	Operation, InputType string
	// Reason says precisely why.
	Reason string
}

// errALUSkip marks a kernel that cannot run here (as opposed to one that
// failed).
var errALUSkip = errors.New("gpu: ALU kernel not supported here")

// aluLimits bounds the ALU probe's calibration.
type aluLimits struct {
	// cal bounds the dispatches per sample and the samples (calibrate.go);
	// its MaxDispatchS is the longest a sizing trial may grow to.
	cal calibrationLimits
	// MinGroups and MaxGroups bound the workgroups of a dispatch; sizing
	// starts at MinGroups and grows towards MaxGroups.
	MinGroups, MaxGroups uint32
	// MinIters is the fewest loop trips of a dispatch.
	MinIters uint32
	// MinDispatchS and LaunchFactor: a timed dispatch lasts at least
	// max(MinDispatchS, LaunchFactor*empty round trip).
	MinDispatchS, LaunchFactor float64
	// WarmUp is the sustained load before each kernel's samples.
	WarmUp time.Duration
}

// Sizing rules of the ALU probe. aluMaxGroups (16.7 M invocations) is more
// than 40 waves of the largest GPUs' resident invocations, so a partly
// filled last wave costs little; aluMinIters keeps each invocation's
// set-up and output (a few dozen instructions) below 1 % of its work.
const (
	aluWG        = 256
	aluMaxGroups = 1 << 16
	aluMinGroups = 64
	aluMinIters  = 32
	aluMaxIters  = 1 << 20
)

// newALULimits are the ALU probe's limits for the device's mode.
func newALULimits(quick bool) aluLimits {
	l := aluLimits{
		cal: calibrationLimits{
			MinSampleS: 2e-3, LaunchFactor: 20, MaxDispatchS: 0.1, MinElements: 1, ElementStep: 1,
			MaxIterations: 4096, BudgetS: 1.0, MinSamples: 5, MaxSamples: 30,
		},
		MinGroups: aluMinGroups, MaxGroups: aluMaxGroups, MinIters: aluMinIters,
		MinDispatchS: 2e-3, LaunchFactor: 50, WarmUp: warmUp,
	}
	if quick {
		l.cal.BudgetS, l.cal.MinSamples, l.cal.MaxSamples = 0.25, 3, 5
	}
	return l
}

// MeasureALUKernels measures vector-ALU throughput for the rows of
// ALUKernels named (by Name; none named means all) that the device can
// run. Each kernel is sized by a short timed calibration, warmed up for at
// least 250 ms, timed, and its output checked exactly against the CPU
// reference; a failed check returns an error wrapping ErrCheckFailed and
// no figures. Kernels the device or the WGSL compiler cannot run come back
// as skips with the reason.
func MeasureALUKernels(ctx context.Context, d *Device, names []string) ([]ALUResult, []ALUSkip, error) {
	if err := d.alive(); err != nil {
		return nil, nil, err
	}
	rows, err := selectRows(ALUKernels(), names, func(k ALUKernel) string { return k.Name })
	if err != nil {
		return nil, nil, fmt.Errorf("gpu: alu: %w", err)
	}
	return measureALURows(ctx, d, rows, newALULimits(d.opts.Quick), nil)
}

// selectRows returns the rows of table whose name is among names, in
// table order; none named means all of them. A name no row has is an error.
func selectRows[T any](table []T, names []string, name func(T) string) ([]T, error) {
	if len(names) == 0 {
		return table, nil
	}
	var rows []T
	for _, r := range table {
		if slices.Contains(names, name(r)) {
			rows = append(rows, r)
		}
	}
	for _, n := range names {
		if !slices.ContainsFunc(rows, func(r T) bool { return name(r) == n }) {
			return nil, fmt.Errorf("no kernel named %q", n)
		}
	}
	return rows, nil
}

// measureALURows measures the rows given.
func measureALURows(ctx context.Context, d *Device, rows []ALUKernel, lim aluLimits, tamper tamperFunc) ([]ALUResult, []ALUSkip, error) {
	r, err := newALURun(ctx, d, lim, tamper)
	if err != nil {
		return nil, nil, err
	}
	defer r.release()
	var results []ALUResult
	var skips []ALUSkip
	for _, k := range rows {
		d.progress("alu: %s", k.Name)
		res, err := r.measure(ctx, k)
		switch {
		case errors.Is(err, errALUSkip):
			skips = append(skips, ALUSkip{Kernel: k.Name, Operation: k.Operation, InputType: k.InputType,
				Reason: skipReason(err)})
		case err != nil:
			return nil, nil, fmt.Errorf("alu %s: %w", k.Name, err)
		default:
			results = append(results, res)
		}
	}
	return results, skips, nil
}

// skipReason is err's message without the sentinel's.
func skipReason(err error) string {
	var s *aluSkipError
	if errors.As(err, &s) {
		return s.reason
	}
	return err.Error()
}

// aluSkipError is a skip with its reason.
type aluSkipError struct{ reason string }

func (e *aluSkipError) Error() string { return e.reason }
func (e *aluSkipError) Unwrap() error { return errALUSkip }

// skipf returns a skip error with a formatted reason.
func skipf(format string, args ...any) error {
	return &aluSkipError{reason: fmt.Sprintf(format, args...)}
}

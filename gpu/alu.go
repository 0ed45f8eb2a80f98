package gpu

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/everycycle/appraise/schema"
)

// ALUKernel is one row of the vector-ALU table: what a kernel computes and
// how its operations are counted.
type ALUKernel struct {
	Name                       string // in results, e.g. "fp32-fma"
	File, Entry                string // WGSL file in package wgsl (no extension) and entry point
	Operation                  string // "fma" or "mad" (integer)
	InputType, AccumulatorType string // "fp32" or "int32"
	Counted                    string // the WGSL operation counted
	Lanes                      int    // lanes of one counted operation
	OpsPerLane                 int    // operations one lane counts for
	Chains                     int    // independent dependency chains per invocation
	PerTrip                    int    // counted operations per chain per loop trip

	kind aluKind
}

// OpsPerOperation is Lanes * OpsPerLane.
func (k ALUKernel) OpsPerOperation() uint64 { return uint64(k.Lanes * k.OpsPerLane) }

// OpCounting is the counting rule as results state it, e.g. "fma=2".
func (k ALUKernel) OpCounting() string { return fmt.Sprintf("%s=%d", k.Operation, k.OpsPerLane) }

// ALUKernels returns the table in the order the probe runs it. A dispatch
// counts invocations * Chains * trips * PerTrip * OpsPerOperation. What core
// WGSL cannot express (fp16, fp64, packed 8-bit dot products) is raw
// Vulkan's (package coopmat/alu).
func ALUKernels() []ALUKernel {
	return []ALUKernel{
		{Name: "fp32-fma", File: "alu_f32", Entry: "alu_f32", Operation: "fma", InputType: "fp32", AccumulatorType: "fp32",
			Counted: "fma(x, a, b) on vec4<f32>", Lanes: 4, OpsPerLane: 2, Chains: 8, PerTrip: 16, kind: aluF32},
		{Name: "int32-mad", File: "alu_i32", Entry: "alu_i32", Operation: "mad", InputType: "int32", AccumulatorType: "int32",
			Counted: "x*a + y on vec4<i32>", Lanes: 4, OpsPerLane: 2, Chains: 4, PerTrip: 16, kind: aluI32},
	}
}

// ALUResult is one kernel's measured vector-ALU throughput.
type ALUResult struct {
	Kernel                                string // the row of ALUKernels
	Operation, InputType, AccumulatorType string
	OpCounting                            string // e.g. "fma=2"
	OpsPerS                               schema.Stat
	Timing                                schema.TimingMethod
	Invocations                           uint64 // per dispatch
	ChainsPerInvocation                   uint64
	Iterations                            uint64 // dependent counted operations per chain per dispatch
	DispatchesPerSample                   int
	Checked                               uint64  // invocations whose output was compared with the reference
	MaxError, Tolerance                   float64 // both 0: every kernel is checked exactly
	ErrorKind                             string  // "exact"
}

type aluLimits struct {
	// cal bounds the samples; its MaxDispatchS bounds the sizing trials.
	cal                        calibrationLimits
	MinGroups, MaxGroups       uint32
	MinIters                   uint32
	MinDispatchS, LaunchFactor float64 // see itersFor
	WarmUp                     time.Duration
}

const (
	aluWG        = 256
	aluMaxGroups = 1 << 16
	aluMinGroups = 64
	aluMinIters  = 32
	aluMaxIters  = 1 << 20
)

func newALULimits(s Sampling) aluLimits {
	return aluLimits{
		cal: s.apply(calibrationLimits{
			MinSampleS: 2e-3, LaunchFactor: 20, MaxDispatchS: 0.1, MinElements: 1, ElementStep: 1,
			MaxIterations: 4096, BudgetS: 1.0, MinSamples: 5, MaxSamples: 30,
		}),
		MinGroups: aluMinGroups, MaxGroups: aluMaxGroups, MinIters: aluMinIters,
		MinDispatchS: 2e-3, LaunchFactor: 50, WarmUp: warmUp,
	}
}

// MeasureALUKernels measures the rows of ALUKernels named (none means all)
// and checks their output exactly; a failed check returns an error wrapping
// ErrCheckFailed.
func MeasureALUKernels(ctx context.Context, d *Device, names []string) ([]ALUResult, error) {
	if err := d.alive(); err != nil {
		return nil, err
	}
	rows, err := selectRows(ALUKernels(), names, func(k ALUKernel) string { return k.Name })
	if err != nil {
		return nil, fmt.Errorf("gpu: alu: %w", err)
	}
	return measureALURows(ctx, d, rows, newALULimits(d.opts.Effort.ALU), nil)
}

// selectRows returns the named rows of table in order; none named means all.
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

func measureALURows(ctx context.Context, d *Device, rows []ALUKernel, lim aluLimits, tamper tamperFunc) ([]ALUResult, error) {
	r, err := newALURun(ctx, d, lim, tamper)
	if err != nil {
		return nil, err
	}
	defer r.release()
	var results []ALUResult
	for _, k := range rows {
		d.progress("alu: %s", k.Name)
		res, err := r.measure(ctx, k)
		if err != nil {
			return nil, fmt.Errorf("alu %s: %w", k.Name, err)
		}
		results = append(results, res)
	}
	return results, nil
}

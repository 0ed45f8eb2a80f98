package cpu

import (
	"context"
	"fmt"
	"unsafe"

	"github.com/everycycle/appraise/internal/measure/refcheck"
	"github.com/everycycle/appraise/internal/measure/stats"
)

// fmaSpec is one row of the throughput table.
type fmaSpec struct {
	kind      fmaKind
	operation string // a row of opsPerLane
	inputType string // "fp64" or "fp32"
	vector    bool
}

// label names the kernel in errors and in the fault-injection hook.
func (f fmaSpec) label() string {
	form := "scalar"
	if f.vector {
		form = "vector"
	}
	return f.operation + "/" + f.inputType + "/" + form
}

// fmaTable lists the throughput kernels in the order they run.
func fmaTable() []fmaSpec {
	return []fmaSpec{
		{kind: kindScalarF64, operation: "fma", inputType: "fp64", vector: false},
		{kind: kindVectorF64, operation: "fma", inputType: "fp64", vector: true},
		{kind: kindVectorF32, operation: "fma", inputType: "fp32", vector: true},
	}
}

// opsPerLane is how many operations one instruction counts per lane: fma 2,
// also where the path issues a multiply and an add.
func opsPerLane(op string) (int, error) {
	switch op {
	case "fma":
		return 2, nil
	}
	return 0, fmt.Errorf("cpubench: no operation count for %q", op)
}

const (
	fmaMultiplier     = 0x1p-20 // a in x = x*a + x
	maxItersPerCall   = 1 << 20 // x stays below 1.75e < 5; a call's reference costs milliseconds
	trialItersPerCall = 1 << 14 // calibration trials' call length
	startValues       = 4       // start values 1 + k/4
)

func startValue[T float32 | float64](k int) T { return T(1 + float64(k%startValues)/startValues) }

// reference runs n steps of x = x*a + x from each start value in T. With a a
// power of two and x in [1, 5), x*a is exact, so fused and unfused paths both
// round once, alike: the check demands equality.
func reference[T float32 | float64](n int64) [startValues]T {
	a := T(fmaMultiplier)
	x0, x1, x2, x3 := startValue[T](0), startValue[T](1), startValue[T](2), startValue[T](3)
	for range n {
		x0, x1, x2, x3 = x0*a+x0, x1*a+x1, x2*a+x2, x3*a+x3
	}
	return [startValues]T{x0, x1, x2, x3}
}

// fmaBench runs one FMA kernel on every thread.
type fmaBench[T float32 | float64] struct {
	spec     fmaSpec
	isa      isa
	shape    shape
	threads  int
	corrupt  bool // test hook: spoil one value of the last call
	bufs     [][]T
	checks   []refcheck.Result
	ref      [startValues]T // the reference of calls of refIters iterations
	refIters int64
}

func newFMABench[T float32 | float64](spec fmaSpec, path isa, threads int, corrupt bool) (*fmaBench[T], error) {
	sh, ok := fmaShape(path, spec.kind)
	if !ok {
		return nil, fmt.Errorf("cpubench: %s: ISA path %v lacks the kernel", spec.label(), path)
	}
	var zero T
	if int(unsafe.Sizeof(zero)) != sh.elemBytes {
		return nil, fmt.Errorf("cpubench: %s: %d-byte values on a %d-byte kernel", spec.label(), unsafe.Sizeof(zero), sh.elemBytes)
	}
	b := &fmaBench[T]{spec: spec, isa: path, shape: sh, threads: threads, corrupt: corrupt,
		bufs: make([][]T, threads), checks: make([]refcheck.Result, threads)}
	for w := range b.bufs {
		b.bufs[w] = make([]T, sh.values())
		b.checks[w] = refcheck.New()
	}
	return b, nil
}

// timed runs calls calls of perCall iterations on every thread, checking every
// value of each call against want, and returns seconds.
func (b *fmaBench[T]) timed(calls, perCall int64, want [startValues]T, last bool) (float64, error) {
	errs := make([]error, b.threads)
	secs := runTeam(b.threads, func(w int) {
		buf := b.bufs[w]
		for c := range calls {
			for k := range buf {
				buf[k] = startValue[T](k)
			}
			if errs[w] = fmaRun(b.isa, b.spec.kind, buf, fmaMultiplier, perCall); errs[w] != nil {
				return
			}
			if b.corrupt && last && w == 0 && c == calls-1 {
				buf[len(buf)/2] *= T(corruptFactor)
			}
			for k, v := range buf {
				b.checks[w].Compare(float64(v), float64(want[k%startValues]), 0, int64(k))
			}
		}
	})
	return secs, firstError(errs)
}

// calibrate returns a sample's iterations per thread, from warm-up trials.
func (b *fmaBench[T]) calibrate(targetS float64) (int64, error) {
	want := reference[T](trialItersPerCall)
	trial := func(calls int64) (float64, error) { return b.timed(calls, trialItersPerCall, want, false) }
	calls, err := calibrate(1, targetS, trial)
	return calls * trialItersPerCall, err
}

// sample times total iterations per thread, in calls of at most maxItersPerCall.
func (b *fmaBench[T]) sample(total int64, last bool) (float64, error) {
	calls, perCall, err := splitIterations(total, maxItersPerCall)
	if err != nil {
		return 0, err
	}
	if b.refIters != perCall {
		b.ref, b.refIters = reference[T](perCall), perCall
	}
	return b.timed(calls, perCall, b.ref, last)
}

// ops is the operation count of total iterations per thread, as sample rounds.
func (b *fmaBench[T]) ops(total int64, opsPerLane int) float64 {
	calls, perCall, err := splitIterations(total, maxItersPerCall)
	if err != nil {
		return 0
	}
	return float64(int64(b.threads)*calls*perCall) * float64(b.shape.values()*opsPerLane)
}

// measure calibrates, takes the samples, and returns the checked figure.
func (b *fmaBench[T]) measure(ctx context.Context, plan samplePlan) (Throughput, error) {
	ops, err := opsPerLane(b.spec.operation)
	if err != nil {
		return Throughput{}, err
	}
	total, err := b.calibrate(plan.targetS)
	if err != nil {
		return Throughput{}, fmt.Errorf("cpubench: %s: %w", b.spec.label(), err)
	}
	amount := func(total int64) float64 { return b.ops(total, ops) }
	rates, err := plan.take(ctx, total, b.sample, amount)
	if err != nil {
		return Throughput{}, fmt.Errorf("cpubench: %s: %w", b.spec.label(), err)
	}
	chk := refcheck.MergeAll(b.checks)
	if err := chk.Err(ErrCheckFailed, b.spec.label(), 0); err != nil {
		return Throughput{}, err
	}
	stat, err := stats.Summarize(rates)
	if err != nil {
		return Throughput{}, fmt.Errorf("cpubench: %s: %w", b.spec.label(), err)
	}
	return Throughput{
		Operation: b.spec.operation, InputType: b.spec.inputType, Vector: b.spec.vector,
		Lanes: b.shape.lanes, OpsPerS: stat, Checked: chk.Checked, MaxError: chk.MaxRel, Tolerance: 0,
	}, nil
}

// fusedProbeInputs returns x and a for which one step of x*a + x tells fused
// from unfused: x = 1+e and a = -(1-e), so x*a alone rounds to -1.
func fusedProbeInputs[T float32 | float64]() (x, a, fused, unfused T) {
	e := T(0x1p-30)
	var zero T
	if unsafe.Sizeof(zero) == 4 {
		e = T(0x1p-13)
	}
	return 1 + e, -(1 - e), e + e*e, e
}

// probeFused checks on fusedProbeInputs that the path fuses as its shape says,
// lest an FMA path the compiler did not contract count twice its instructions.
func (b *fmaBench[T]) probeFused() error {
	x, a, fused, unfused := fusedProbeInputs[T]()
	buf := make([]T, b.shape.values())
	for k := range buf {
		buf[k] = x
	}
	if err := fmaRun(b.isa, b.spec.kind, buf, float64(a), 1); err != nil {
		return err
	}
	isFused := buf[0] == fused
	for k, v := range buf {
		if v != fused && v != unfused || (v == fused) != isFused {
			return fmt.Errorf("%w: %s on %v: fused-multiply-add probe lane %d is %v, want %v (fused) or %v (unfused), all alike",
				ErrCheckFailed, b.spec.label(), b.isa, k, v, fused, unfused)
		}
	}
	if b.shape.fused >= 0 && isFused != (b.shape.fused == 1) {
		return fmt.Errorf("cpubench: %s on %v: compiled expecting fused=%d, but the kernel computes fused=%v",
			b.spec.label(), b.isa, b.shape.fused, isFused)
	}
	return nil
}

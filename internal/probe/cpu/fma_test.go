package cpu

import (
	"context"
	"errors"
	"math"
	"runtime"
	"testing"

	"github.com/everycycle/appraise/internal/measure/refcheck"
)

func TestOpsPerLane(t *testing.T) {
	if n, err := opsPerLane("fma"); err != nil || n != 2 {
		t.Errorf("opsPerLane(fma) = %d, %v; want 2", n, err)
	}
	if _, err := opsPerLane("div"); err == nil {
		t.Error("an unknown operation has a count")
	}
	for _, f := range fmaTable() {
		if _, err := opsPerLane(f.operation); err != nil {
			t.Errorf("%s: %v", f.label(), err)
		}
	}
}

func TestISAPaths(t *testing.T) {
	isas := supportedISAs()
	if len(isas) == 0 {
		t.Fatal("no ISA path")
	}
	want := map[string][]string{"amd64": {"sse2"}, "arm64": {"neon"}}[runtime.GOARCH]
	for _, name := range want {
		if _, err := parseISA(name); err != nil {
			t.Errorf("%s: %v", runtime.GOARCH, err)
		}
	}
	if best, err := parseISA(""); err != nil || best != isas[0] {
		t.Errorf("parseISA(\"\") = %v, %v; want %v", best, err, isas[0])
	}
	if _, err := parseISA("avx1024"); err == nil {
		t.Error("an unknown ISA path parsed")
	}
	t.Logf("paths here: %v", isas)
}

// TestBestPathHasEveryKernel: the path the host baseline uses (the best
// one here: NEON on arm64) has every FMA kernel, so its figures come from
// that path's code; scripts/arm64-smoke runs this under emulation, where
// TestFMAKernelsMatchReference checks the NEON kernels' results.
func TestBestPathHasEveryKernel(t *testing.T) {
	best := mustISA(t)
	if runtime.GOARCH == "arm64" && best != isaNEON {
		t.Errorf("best path on arm64: %v, want neon", best)
	}
	for _, spec := range fmaTable() {
		if _, ok := fmaShape(best, spec.kind); !ok {
			t.Errorf("%v has no %s kernel", best, spec.label())
		}
	}
}

// forEachKernel runs f for every FMA kernel of every path this CPU runs.
func forEachKernel(t *testing.T, f func(t *testing.T, path isa, spec fmaSpec, sh shape)) {
	for _, path := range supportedISAs() {
		for _, spec := range fmaTable() {
			sh, ok := fmaShape(path, spec.kind)
			if !ok {
				continue
			}
			t.Run(path.String()+"/"+spec.label(), func(t *testing.T) { f(t, path, spec, sh) })
		}
	}
}

func TestFMAShapes(t *testing.T) {
	widths := map[isa]int{isaSSE2: 16, isaNEON: 16, isaAVX2FMA: 32, isaAVX512F: 64}
	forEachKernel(t, func(t *testing.T, path isa, spec fmaSpec, sh shape) {
		size := map[string]int{"fp64": 8, "fp32": 4}[spec.inputType]
		if sh.elemBytes != size || sh.chains < 8 {
			t.Errorf("shape %+v: want %d-byte values and at least 8 chains", sh, size)
		}
		if !spec.vector && sh.lanes != 1 {
			t.Errorf("scalar kernel with %d lanes", sh.lanes)
		}
		if spec.vector && sh.lanes*sh.elemBytes != widths[path] {
			t.Errorf("%d lanes of %d bytes on a %d-byte path", sh.lanes, sh.elemBytes, widths[path])
		}
		wantFused := path != isaSSE2 && path != isaScalar
		if sh.fused >= 0 && (sh.fused == 1) != wantFused {
			t.Errorf("fused = %d on %v", sh.fused, path)
		}
	})
}

// TestFMAKernelsMatchReference runs every kernel of every path for a few
// iteration counts and demands every value equal the Go reference.
func TestFMAKernelsMatchReference(t *testing.T) {
	forEachKernel(t, func(t *testing.T, path isa, spec fmaSpec, sh shape) {
		if spec.inputType == "fp32" {
			checkKernel[float32](t, path, spec)
		} else {
			checkKernel[float64](t, path, spec)
		}
	})
}

func checkKernel[T float32 | float64](t *testing.T, path isa, spec fmaSpec) {
	b, err := newFMABench[T](spec, path, 2, false)
	if err != nil {
		t.Fatal(err)
	}
	if err := b.probeFused(); err != nil {
		t.Fatal(err)
	}
	for _, n := range []int64{0, 1, 777, trialItersPerCall} {
		if _, err := b.timed(2, n, reference[T](n), false); err != nil {
			t.Fatal(err)
		}
	}
	chk := refcheck.MergeAll(b.checks)
	if err := chk.Err(ErrCheckFailed, spec.label(), 0); err != nil {
		t.Error(err)
	}
	if want := uint64(4 * 2 * 2 * b.shape.values()); chk.Checked != want {
		t.Errorf("%d values checked, want %d", chk.Checked, want)
	}
	// A kernel told to run one iteration less must fail.
	if _, err := b.timed(1, 776, reference[T](777), false); err != nil {
		t.Fatal(err)
	}
	if err := refcheck.MergeAll(b.checks).Err(ErrCheckFailed, spec.label(), 0); !errors.Is(err, ErrCheckFailed) {
		t.Errorf("one iteration short passed the check (%v)", err)
	}
}

// TestReferenceCountsEveryIteration: n and n+1 steps differ for every start
// value in both precisions, up to the longest call, and values stay small.
func TestReferenceCountsEveryIteration(t *testing.T) {
	for _, n := range []int64{0, 1, 1000, maxItersPerCall - 1} {
		a64, b64 := reference[float64](n), reference[float64](n+1)
		a32, b32 := reference[float32](n), reference[float32](n+1)
		for k := range startValues {
			if a64[k] == b64[k] || a32[k] == b32[k] {
				t.Errorf("n=%d start %d: one more step changed nothing", n, k)
			}
			if b64[k] >= 5 || b32[k] >= 5 {
				t.Errorf("n=%d start %d: %v, %v beyond 5", n, k, b64[k], b32[k])
			}
		}
	}
}

func TestFusedProbeInputs(t *testing.T) {
	x, a, fused, unfused := fusedProbeInputs[float64]()
	if fused == unfused || math.FMA(x, a, x) != fused || float64(x*a)+x != unfused {
		t.Errorf("fp64 probe: fused %v (FMA gives %v), unfused %v (gives %v)", fused, math.FMA(x, a, x), unfused, float64(x*a)+x)
	}
	// fp32: the product is exact in float64, so one float64 sum rounded to
	// float32 is the fused result.
	x32, a32, fused32, unfused32 := fusedProbeInputs[float32]()
	exact := float32(float64(x32)*float64(a32) + float64(x32))
	if fused32 == unfused32 || exact != fused32 || float32(x32*a32)+x32 != unfused32 {
		t.Errorf("fp32 probe: fused %v (exact %v), unfused %v", fused32, exact, unfused32)
	}
}

func TestFMAFaultInjection(t *testing.T) {
	b, err := newFMABench[float32](fmaTable()[2], mustISA(t), 2, true)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.timed(2, 100, reference[float32](100), true); err != nil {
		t.Fatal(err)
	}
	if err := refcheck.MergeAll(b.checks).Err(ErrCheckFailed, "fp32", 0); !errors.Is(err, ErrCheckFailed) {
		t.Errorf("corrupted fp32 value passed the check (%v)", err)
	}
}

func TestMeasureThroughputFault(t *testing.T) {
	o := Options{corrupt: "fma/fp64/vector"}
	plan := samplePlan{samples: 1, targetS: minSampleS}
	_, err := measureThroughput(context.Background(), o, mustISA(t), 2, plan)
	if !errors.Is(err, ErrCheckFailed) {
		t.Errorf("measureThroughput with a corrupted vector fp64 value: %v", err)
	}
}

func mustISA(t *testing.T) isa {
	t.Helper()
	path, err := parseISA("")
	if err != nil {
		t.Fatal(err)
	}
	return path
}

package coopmat

import (
	"context"
	"errors"
	"flag"
	"testing"
	"time"
)

// Flags for runs on a GPU host (go test -c, then -coopmat.size=8192).
var (
	flagSize   = flag.Uint("coopmat.size", 256, "GEMM edge for TestRunCoopMat")
	flagSearch = flag.Uint("coopmat.search", 0, "GEMM edge of the tile search (0: min(size, 4096))")
	flagPlain  = flag.Uint("coopmat.plain", 0, "also run the plain kernels at this GEMM edge (0: skip)")
)

func TestRunCoopMat(t *testing.T) {
	d := newDevice(t)
	o := Options{Size: uint32(*flagSize), SearchSize: uint32(*flagSearch), Seed: 7, Progress: func(l string) { t.Log(l) }}
	o.Timing = Timing{SampleTime: 20 * time.Millisecond}
	shapes, err := d.Shapes()
	if !d.Info.HasExtension(extCoopMat) {
		if !errors.Is(err, ErrExtensionMissing) {
			t.Fatalf("Shapes without %s: err = %v, want ErrExtensionMissing", extCoopMat, err)
		}
		if _, _, err := Run(context.Background(), d, o); !errors.Is(err, ErrExtensionMissing) {
			t.Fatalf("Run without %s: err = %v, want ErrExtensionMissing", extCoopMat, err)
		}
		return
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("device %s driver %s %s, %d shapes", d.Info.Name, d.Info.DriverName, d.Info.DriverInfo, len(shapes))
	failed := 0
	for _, s := range shapes {
		start := time.Now()
		r, err := d.RunShape(context.Background(), s, o)
		switch {
		case isSkip(err):
			t.Logf("SKIP %v: %v", s, err)
			continue
		case err != nil:
			t.Errorf("FAIL %v: %v", s, err)
			failed++
			continue
		}
		if !r.MatrixEngine || r.Check.Elements == 0 {
			t.Errorf("%v: matrix_engine=%v, %d elements checked", r.Shape, r.MatrixEngine, r.Check.Elements)
		}
		t.Logf("RESULT %-34v %v tile %-20s %8.1f T/s (min %.1f max %.1f, n=%d, %s, reps %d) check max_err %.3g tol %.3g worst %.3g on %d [%v]",
			r.Shape, r.Problem, r.Tile, r.OpsPerSecond.Median/1e12, r.OpsPerSecond.Min/1e12, r.OpsPerSecond.Max/1e12,
			r.OpsPerSecond.Samples, r.Timing, r.Repeats, r.Check.MaxError, r.Check.Tolerance, r.Check.Worst, r.Check.Elements,
			time.Since(start).Round(time.Millisecond))
	}
}

func TestRunPlainOnGPU(t *testing.T) {
	if *flagPlain == 0 {
		t.Skip("set -coopmat.plain=N to measure the plain kernels at edge N")
	}
	d := newDevice(t)
	o := Options{Size: uint32(*flagPlain), Seed: 3, Timing: Timing{SampleTime: 20 * time.Millisecond},
		Progress:       func(l string) { t.Log(l) },
		FMAInvocations: 1 << 22, FMASteps: 8192}
	res, skips, err := RunPlain(context.Background(), d, o)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range res {
		t.Logf("%s %v tile %s: %.2f TFLOP/s (min %.2f max %.2f, %s) check max_err %.3g tol %.3g on %d",
			r.Probe, r.Problem, r.Tile, r.OpsPerSecond.Median/1e12, r.OpsPerSecond.Min/1e12, r.OpsPerSecond.Max/1e12,
			r.Timing, r.Check.MaxError, r.Check.Tolerance, r.Check.Elements)
	}
	for _, s := range skips {
		t.Logf("skipped %s: %s", s.Probe, s.Reason)
	}
}

func TestShapesInfo(t *testing.T) {
	d := newDevice(t)
	t.Logf("%+v", d.enabled)
	shapes, err := d.Shapes()
	if err != nil {
		t.Logf("shapes: %v", err)
		return
	}
	for _, s := range shapes {
		t.Logf("%v", s)
	}
}

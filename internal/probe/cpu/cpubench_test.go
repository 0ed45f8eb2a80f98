package cpu

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/everycycle/appraise/schema"
)

// TestMeasureQuick runs the whole probe as the box report will and checks
// the shape of every row; the figures are logged.
func TestMeasureQuick(t *testing.T) {
	start := time.Now()
	r, err := Measure(context.Background(), Options{Quick: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("quick probe: %v, %d threads, ISA %s", time.Since(start), r.Threads, r.ISA)
	if r.Threads < 1 || r.ISA == "" || r.Timing != schema.TimingHostWallClock {
		t.Errorf("threads %d, ISA %q", r.Threads, r.ISA)
	}
	wantBytes := map[string]int{"read": 8, "write": 8, "copy": 16, "triad": 24}
	if len(r.Bandwidth) != len(wantBytes) {
		t.Errorf("%d bandwidth rows", len(r.Bandwidth))
	}
	for _, b := range r.Bandwidth {
		t.Logf("%-5s %6.1f GB/s  [%.1f, %.1f] %d samples, %d MiB arrays, %d checked, max error %.2g (tolerance %.2g)",
			b.Kernel, b.BytesPerS.Median/1e9, b.BytesPerS.Min/1e9, b.BytesPerS.Max/1e9, b.BytesPerS.Samples,
			b.ArrayBytes/mib, b.Checked, b.MaxError, b.Tolerance)
		if b.BytesPerElement != wantBytes[b.Kernel] || b.ArrayBytes < minArrayBytes || b.Checked == 0 || b.MaxError > b.Tolerance {
			t.Errorf("%+v", b)
		}
		checkStat(t, b.Kernel, b.BytesPerS.Samples, b.BytesPerS.Min, b.BytesPerS.Median, b.BytesPerS.Max)
	}
	if len(r.Throughput) != len(fmaTable()) {
		t.Errorf("%d throughput rows", len(r.Throughput))
	}
	for _, f := range r.Throughput {
		t.Logf("%s %s vector=%-5v %2d lanes %7.1f GFLOP/s [%.1f, %.1f] %d checked",
			f.Operation, f.InputType, f.Vector, f.Lanes, f.OpsPerS.Median/1e9, f.OpsPerS.Min/1e9, f.OpsPerS.Max/1e9, f.Checked)
		if f.Lanes < 1 || f.Checked == 0 || f.MaxError != 0 || f.Tolerance != 0 {
			t.Errorf("%+v", f)
		}
		checkStat(t, f.InputType, f.OpsPerS.Samples, f.OpsPerS.Min, f.OpsPerS.Median, f.OpsPerS.Max)
	}
}

func checkStat(t *testing.T, name string, n int, lo, mid, hi float64) {
	t.Helper()
	if n < 3 || !(lo > 0) || lo > mid || mid > hi {
		t.Errorf("%s: stat of %d samples min %v median %v max %v", name, n, lo, mid, hi)
	}
}

func TestMeasureOptions(t *testing.T) {
	ctx := context.Background()
	if _, err := Measure(ctx, Options{Threads: -1}); err == nil {
		t.Error("-1 threads accepted")
	}
	if _, err := Measure(ctx, Options{MemoryLimit: 16 * mib}); !errors.Is(err, ErrTooLittleMemory) {
		t.Errorf("16 MiB limit: %v, want ErrTooLittleMemory", err)
	}
	if _, err := Measure(ctx, Options{isa: "no-such-path"}); err == nil {
		t.Error("an unknown ISA path accepted")
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := Measure(cancelled, Options{Quick: true}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled context: %v", err)
	}
}

// TestMeasureFaultInjection: a corrupted output fails the whole probe,
// through Options as the test hook is wired.
func TestMeasureFaultInjection(t *testing.T) {
	r, err := Measure(context.Background(), Options{Quick: true, Threads: 2, corrupt: "read"})
	if !errors.Is(err, ErrCheckFailed) || r != nil {
		t.Errorf("Measure with a corrupted read sum = %v, %v; want ErrCheckFailed and no result", r, err)
	}
}

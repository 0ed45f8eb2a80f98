package cpu

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/everycycle/appraise/schema"
)

// fakeHost is a root holding a host's cache topology (one shared L3 of
// llc, e.g. "8M"; none when "") and its meminfo (MemAvailable in kB), and
// no cgroup, so that no test sizes from the machine it runs on.
func fakeHost(t *testing.T, llc string, availableKB string) string {
	t.Helper()
	root := t.TempDir()
	writeCache(t, root, 0, 0, "1", "Data", "48K", "0")
	if llc != "" {
		writeCache(t, root, 0, 3, "3", "Unified", llc, "0-1")
		writeCache(t, root, 1, 3, "3", "Unified", llc, "0-1")
	}
	if err := os.MkdirAll(filepath.Join(root, "proc"), 0o755); err != nil {
		t.Fatal(err)
	}
	meminfo := "MemTotal: 25165824 kB\nMemAvailable: " + availableKB + " kB\n"
	if err := os.WriteFile(filepath.Join(root, "proc/meminfo"), []byte(meminfo), 0o644); err != nil {
		t.Fatal(err)
	}
	return root
}

// TestMeasureQuick runs the whole probe as the box report will, on an
// injected host (an 8 MiB cache, 2 GiB available), and checks the shape
// of every row; the figures are logged.
func TestMeasureQuick(t *testing.T) {
	start := time.Now()
	r, err := Measure(context.Background(), Options{Effort: quickEffort, Threads: 2, Root: fakeHost(t, "8M", "2097152")})
	if err != nil {
		t.Fatal(err)
	}
	if r.BandwidthOmitted != "" || r.LastLevelCacheBytes != 8*mib {
		t.Errorf("omitted %q, cache %d; want bandwidth measured against an 8 MiB cache", r.BandwidthOmitted, r.LastLevelCacheBytes)
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
		if b.BytesPerElement != wantBytes[b.Kernel] || b.ArrayBytes < minArrayBytes || b.ArrayBytes > minArrayBytes || b.Checked == 0 || b.MaxError > b.Tolerance {
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
	if _, err := Measure(ctx, Options{isa: "no-such-path"}); err == nil {
		t.Error("an unknown ISA path accepted")
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := Measure(cancelled, Options{Effort: quickEffort, Root: fakeHost(t, "8M", "2097152")}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled context: %v", err)
	}
}

// TestMeasureCacheBound: where arrays larger than the caches do not fit
// the memory the process may use, no bandwidth kernel runs, the reason
// names the sizes, and the FMA figures are still measured and checked.
// A 480 MiB cache with 1 GiB available (a quarter: 341 MiB arrays), a
// 1.1 GiB cache with 22 GiB available, and an explicit 16 MiB limit.
func TestMeasureCacheBound(t *testing.T) {
	for _, c := range []struct {
		name   string
		o      Options
		wantIn string
	}{
		{"480 MiB cache, 1 GiB available", Options{Root: fakeHost(t, "491520K", "1048576")}, "want at least 960 MiB"},
		{"1.1 GiB cache, 22 GiB available", Options{Root: fakeHost(t, "1126M", "23068672")}, "last-level cache 1126 MiB"},
		{"16 MiB limit", Options{MemoryLimit: 16 * mib, Root: fakeHost(t, "", "4194304")}, "want at least 64 MiB"},
	} {
		t.Run(c.name, func(t *testing.T) {
			c.o.Effort, c.o.Threads = quickEffort, 2
			r, err := Measure(context.Background(), c.o)
			if err != nil {
				t.Fatal(err)
			}
			if len(r.Bandwidth) != 0 || !strings.Contains(r.BandwidthOmitted, c.wantIn) || !strings.Contains(r.BandwidthOmitted, "cache, not memory") {
				t.Errorf("bandwidth %d rows, omitted %q; want none and a reason naming %q", len(r.Bandwidth), r.BandwidthOmitted, c.wantIn)
			}
			if len(r.Throughput) != len(fmaTable()) {
				t.Errorf("%d throughput rows, want %d", len(r.Throughput), len(fmaTable()))
			}
			h := r.Baseline()
			if len(h.Bandwidth) != 0 || len(h.Precisions) == 0 {
				t.Errorf("baseline: %d bandwidth, %d precisions", len(h.Bandwidth), len(h.Precisions))
			}
		})
	}
}

// TestMeasureFaultInjection: a corrupted output fails the whole probe,
// through Options as the test hook is wired.
func TestMeasureFaultInjection(t *testing.T) {
	r, err := Measure(context.Background(), Options{Effort: quickEffort, Threads: 2, corrupt: "read", Root: fakeHost(t, "8M", "2097152")})
	if !errors.Is(err, ErrCheckFailed) || r != nil {
		t.Errorf("Measure with a corrupted read sum = %v, %v; want ErrCheckFailed and no result", r, err)
	}
}

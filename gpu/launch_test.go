package gpu

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/everycycle/appraise/schema"
)

func TestLaunchQuick(t *testing.T) {
	d := newDevice(t)
	start := time.Now()
	res, err := MeasureLaunch(t.Context(), d)
	took := time.Since(start).Seconds()
	if err != nil {
		t.Fatal(err)
	}
	e, u := res.EmptyDispatchRoundTripS, res.Upload1MiBS
	t.Logf("empty dispatch round trip (%s): median %.1f µs (min %.1f, max %.1f, %d samples); 1 MiB upload (%s): median %.1f µs (min %.1f, max %.1f, %d samples); %s",
		res.DispatchPath, e.Median*1e6, e.Min*1e6, e.Max*1e6, e.Samples,
		res.UploadPath, u.Median*1e6, u.Min*1e6, u.Max*1e6, u.Samples, res.Timing)
	if !slices.Contains(methodPaths(newTestLauncher(t, d).dispatchMethods()), res.DispatchPath) ||
		!slices.Contains(methodPaths(newTestLauncher(t, d).uploadMethods()), res.UploadPath) {
		t.Errorf("paths %q, %q are not among the methods tried", res.DispatchPath, res.UploadPath)
	}
	lim := launchLimits(true)
	for name, s := range map[string]struct{ min, med, max, trial float64 }{
		"empty": {e.Min, e.Median, e.Max, res.EmptyDispatchTrialS}, "upload": {u.Min, u.Median, u.Max, res.Upload1MiBTrialS},
	} {
		// Plausibility, not expectation: a round trip takes more than 100 ns,
		// and each was timed inside the call (seconds, not another unit);
		// so was the kept path's trial median.
		if !(s.min > 1e-7) || s.min > s.med || s.med > s.max || s.max > took || !(s.trial > 1e-7) || s.trial > took {
			t.Errorf("%s: implausible times %+v", name, s)
		}
	}
	if e.Samples < lim.MinSamples || u.Samples < lim.MinSamples {
		t.Errorf("too few samples: %d, %d", e.Samples, u.Samples)
	}
	if res.Dispatches <= uint64(e.Samples) || res.UploadsChecked <= u.Samples {
		t.Errorf("checks did not cover the samples: %d dispatches, %d uploads", res.Dispatches, res.UploadsChecked)
	}
	if res.Timing != schema.TimingHostWallClock {
		t.Errorf("timing %q", res.Timing)
	}
}

func TestLaunchCatchesLostDispatch(t *testing.T) {
	d := newDevice(t)
	tamper := func(what string, off uint64, chunk []byte) []byte {
		if what == "counter" {
			chunk[0]-- // as if one dispatch had not run
		}
		return chunk
	}
	if _, err := measureLaunch(t.Context(), d, tamper); !errors.Is(err, ErrCheckFailed) {
		t.Fatalf("got %v, want ErrCheckFailed", err)
	}
}

func TestLaunchCatchesCorruptUpload(t *testing.T) {
	d := newDevice(t)
	tamper := func(what string, off uint64, chunk []byte) []byte {
		if what == "upload" {
			chunk[len(chunk)/2] ^= 0x80
		}
		return chunk
	}
	if _, err := measureLaunch(t.Context(), d, tamper); !errors.Is(err, ErrCheckFailed) {
		t.Fatalf("got %v, want ErrCheckFailed", err)
	}
}

// newTestLauncher makes a launcher released at cleanup.
func newTestLauncher(t *testing.T, d *Device) *launcher {
	t.Helper()
	l, err := newLauncher(d, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(l.release)
	return l
}

// methodPaths lists the methods' paths.
func methodPaths(ms []method) []string {
	var ps []string
	for _, m := range ms {
		ps = append(ps, m.path)
	}
	return ps
}

func TestLaunchMethodsEachCheck(t *testing.T) {
	d := newDevice(t)
	l := newTestLauncher(t, d)
	for _, m := range append(l.dispatchMethods(), l.uploadMethods()...) {
		for i := 0; i < 3; i++ {
			if s, err := m.once(); err != nil || !(s > 0) {
				t.Fatalf("%s: %v s, %v", m.path, s, err)
			}
		}
	}
	if err := l.checkCounter(); err != nil {
		t.Fatal(err)
	}
	if l.uploads != 3*4 || l.count != 3*2 {
		t.Errorf("%d uploads checked, %d dispatches, want 12 and 6", l.uploads, l.count)
	}
}

func TestFastestPicksLowestMedian(t *testing.T) {
	seq := func(ts ...float64) func() (float64, error) {
		i := 0
		return func() (float64, error) { i++; return ts[(i-1)%len(ts)], nil }
	}
	ms := []method{
		{"a", seq(1, 1, 5)},   // warm 1; runs 1, 5, 1: median 1
		{"b", seq(9, 0.5, 2)}, // warm 9; runs 0.5, 2, 9: median 2
		{"c", seq(0.1, 3, 3)}, // warm 0.1; runs 3, 3, 0.1: median 3
	}
	i, median, err := fastest(context.Background(), ms, trial{warm: 1, runs: 3})
	if err != nil || ms[i].path != "a" || median != 1 {
		t.Fatalf("got %d (median %g), %v; want a (median 1)", i, median, err)
	}
	fail := []method{{"x", func() (float64, error) { return 0, ErrCheckFailed }}}
	if _, _, err := fastest(context.Background(), fail, trial{warm: 1, runs: 1}); !errors.Is(err, ErrCheckFailed) {
		t.Fatalf("got %v, want ErrCheckFailed", err)
	}
}

func TestFastestPrunes(t *testing.T) {
	calls := map[string]int{}
	timed := func(name string, ts ...float64) method {
		return method{name, func() (float64, error) {
			calls[name]++
			return ts[(calls[name]-1)%len(ts)], nil
		}}
	}
	ms := []method{
		timed("slow", 1, 10), // warm 1, then 10: more than 3x the fastest first run
		timed("ok", 1, 2.9, 0.1, 0.1),
		timed("fast", 1, 1, 1, 1),
	}
	i, _, err := fastest(context.Background(), ms, trial{warm: 1, runs: 3, prune: 3})
	if err != nil || ms[i].path != "ok" {
		t.Fatalf("got %d, %v; want ok", i, err)
	}
	if calls["slow"] != 2 || calls["ok"] != 4 || calls["fast"] != 4 {
		t.Errorf("calls %v: slow should stop after its first timed run", calls)
	}
}

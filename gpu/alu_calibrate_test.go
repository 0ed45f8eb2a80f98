package gpu

import (
	"math"
	"testing"
	"time"
)

func TestALULimits(t *testing.T) {
	for _, c := range []struct {
		s          Sampling
		minSamples int
	}{{Sampling{}, 5}, {quickEffort.ALU, 3}} {
		l := newALULimits(c.s)
		if err := l.cal.validate(); err != nil {
			t.Fatal(err)
		}
		if l.WarmUp < 250*time.Millisecond || l.cal.MinSamples < c.minSamples || l.MinDispatchS < 2e-3 ||
			l.LaunchFactor < 20 || l.MinGroups > l.MaxGroups || l.MinIters > aluMaxIters {
			t.Errorf("sampling %+v: limits %+v", c.s, l)
		}
	}
}

func TestGrowGroups(t *testing.T) {
	const maxD = 0.1
	cases := []struct {
		name   string
		groups uint32
		t      float64
		max    uint32
		want   uint32
	}{
		{"tiny dispatch grows 64x", 64, 1e-5, 1 << 16, 4096},
		{"then reaches the cap", 4096, 3e-4, 1 << 16, 1 << 16},
		{"at the cap", 1 << 16, 1e-3, 1 << 16, 1 << 16},
		{"long enough", 256, maxD / 4, 1 << 16, 256},
		{"at least doubles", 64, 0.015, 1 << 16, 128},
		{"nearest half of the maximum", 64, 0.006, 1 << 16, 512}, // 0.006*8 = 0.048 <= 0.05
		{"cap below the step", 64, 1e-5, 100, 100},
		{"NaN stops", 64, math.NaN(), 1 << 16, 64},
	}
	for _, c := range cases {
		if got := growGroups(c.groups, c.t, c.max, maxD); got != c.want {
			t.Errorf("%s: growGroups(%d, %v) = %d, want %d", c.name, c.groups, c.t, got, c.want)
		}
	}
}

func TestItersFor(t *testing.T) {
	lim := newALULimits(Sampling{})
	cases := []struct {
		name             string
		perIter, launchS float64
		maxIters         uint32
		want             uint32
	}{
		{"fast GPU: the 2 ms floor binds", 1e-6, 15e-6, aluMaxIters, 2000}, // 2 ms > 50 x 15 µs
		{"slow launch: 50 round trips bind", 1e-6, 100e-6, aluMaxIters, 5000},
		{"slow device: MinIters", 1e-3, 100e-6, aluMaxIters, aluMinIters},
		{"kernel cap", 1e-9, 15e-6, 447, 447},
		{"bad time", math.NaN(), 15e-6, aluMaxIters, aluMinIters},
		{"cap below MinIters", 1e-3, 0, 8, 8},
	}
	for _, c := range cases {
		got := itersFor(c.perIter, c.launchS, lim, c.maxIters)
		if got != c.want {
			t.Errorf("%s: itersFor = %d, want %d", c.name, got, c.want)
		}
		target := max(lim.MinDispatchS, lim.LaunchFactor*c.launchS)
		if positiveFinite(c.perIter) && float64(got)*c.perIter < target && got < c.maxIters {
			t.Errorf("%s: %d trips of %v s fall short of %v s", c.name, got, c.perIter, target)
		}
	}
}

// TestALUSizingEndToEnd runs the sizing rules on modelled devices, whose
// dispatch takes overhead + groups*iters*cost seconds, and checks the
// outcome against the calibration's bounds.
func TestALUSizingEndToEnd(t *testing.T) {
	devices := []struct {
		name                   string
		overhead, cost, launch float64 // seconds; cost per workgroup-trip
	}{
		{"big GPU", 5e-6, 2e-9, 15e-6},
		{"small GPU", 10e-6, 1e-7, 30e-6},
		{"software", 50e-6, 2e-6, 150e-6},
		{"very slow", 1e-4, 1e-4, 1e-3},
	}
	for _, s := range []Sampling{{}, quickEffort.ALU} {
		lim := newALULimits(s)
		for _, dv := range devices {
			for _, kind := range []aluKind{aluF32, aluI32} {
				dispatchS := func(g, it uint32) float64 { return dv.overhead + float64(g)*float64(it)*dv.cost }
				groups, iters := lim.MinGroups, min(lim.MinIters, kind.maxIters())
				for {
					next := growGroups(groups, dispatchS(groups, iters), lim.MaxGroups, lim.cal.MaxDispatchS)
					if next == groups {
						break
					}
					groups = next
				}
				iters = itersFor(dispatchS(groups, iters)/float64(iters), dv.launch, lim, kind.maxIters())
				d := dispatchS(groups, iters)
				cal, err := plan(d, dv.launch, lim.cal)
				if err != nil {
					t.Fatal(err)
				}
				sample := d * float64(cal.Iterations)
				t.Logf("sampling %+v %-9s kind %d: %6d groups x %5d trips, %.3g s a dispatch, %d x %d", s, dv.name, kind, groups, iters, d, cal.Samples, cal.Iterations)
				if groups < lim.MinGroups || groups > lim.MaxGroups || iters < min(lim.MinIters, kind.maxIters()) || iters > kind.maxIters() {
					t.Errorf("%s: %d groups x %d trips out of bounds", dv.name, groups, iters)
				}
				if d < max(lim.MinDispatchS, lim.LaunchFactor*dv.launch) && iters < kind.maxIters() {
					t.Errorf("%s: dispatch of %.3g s too short", dv.name, d)
				}
				if sample < lim.cal.MinSampleS || cal.Samples < lim.cal.MinSamples || cal.Samples > lim.cal.MaxSamples {
					t.Errorf("%s: %d samples of %.3g s", dv.name, cal.Samples, sample)
				}
				if total := sample * float64(cal.Samples); total > lim.cal.BudgetS && cal.Samples > lim.cal.MinSamples {
					t.Errorf("%s: sampling takes %.3g s, budget %.3g s", dv.name, total, lim.cal.BudgetS)
				}
			}
		}
	}
}

func TestALUGroupCap(t *testing.T) {
	lim := newALULimits(quickEffort.ALU)
	big := Limits{MaxBufferBytes: 4 << 30, MaxStorageBindingBytes: 2 << 30}
	if g, err := aluGroupCap(big, 4<<30, lim); err != nil || g != aluMaxGroups {
		t.Errorf("big device: %d, %v", g, err)
	}
	if g, err := aluGroupCap(Limits{MaxBufferBytes: 1 << 30, MaxStorageBindingBytes: 1 << 20}, 1<<30, lim); err != nil || g != 1024 {
		t.Errorf("binding limit: %d, %v", g, err)
	}
	if g, err := aluGroupCap(big, 8<<20, lim); err != nil || g != 4096 {
		t.Errorf("memory limit: %d, %v", g, err)
	}
	if _, err := aluGroupCap(big, 64<<10, lim); err == nil {
		t.Error("no room for the minimum grid accepted")
	}
}

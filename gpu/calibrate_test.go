package gpu

import (
	"math"
	"testing"
)

func TestPlanMeetsSampleFloorAndLaunchFactor(t *testing.T) {
	lim := bandwidthLimits(Sampling{})
	cases := []struct {
		name              string
		dispatchS, launch float64
	}{
		{"fast GPU", 0.4e-3, 20e-6},
		{"slow launch", 0.4e-3, 500e-6},
		{"software", 40e-3, 100e-6},
		{"tiny kernel", 1e-6, 10e-6},
	}
	for _, c := range cases {
		p, err := plan(c.dispatchS, c.launch, lim)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		sample := float64(p.Iterations) * c.dispatchS
		target := max(lim.MinSampleS, lim.LaunchFactor*c.launch)
		if sample < target && p.Iterations < lim.MaxIterations {
			t.Errorf("%s: sample %.3g s below target %.3g s with %d iterations", c.name, sample, target, p.Iterations)
		}
		if p.Iterations > 1 && float64(p.Iterations-1)*c.dispatchS >= target {
			t.Errorf("%s: %d iterations is more than needed for %.3g s", c.name, p.Iterations, target)
		}
		if p.Samples < lim.MinSamples || p.Samples > lim.MaxSamples {
			t.Errorf("%s: %d samples outside [%d, %d]", c.name, p.Samples, lim.MinSamples, lim.MaxSamples)
		}
	}
}

func TestPlanBounds(t *testing.T) {
	lim := bandwidthLimits(quickEffort.Bandwidth)
	// A dispatch far longer than the budget: one iteration, minimum samples.
	p, err := plan(10, 1e-3, lim)
	if err != nil || p.Iterations != 1 || p.Samples != lim.MinSamples {
		t.Errorf("long dispatch: %+v, %v", p, err)
	}
	// A dispatch so short the iteration cap binds: cap, maximum samples.
	p, err = plan(1e-12, 1e-6, lim)
	if err != nil || p.Iterations != lim.MaxIterations || p.Samples != lim.MaxSamples {
		t.Errorf("tiny dispatch: %+v, %v", p, err)
	}
	for _, bad := range []float64{0, -1, math.NaN(), math.Inf(1)} {
		if _, err := plan(bad, 1e-6, lim); err == nil {
			t.Errorf("plan accepted dispatch time %v", bad)
		}
	}
	if _, err := plan(1e-3, math.NaN(), lim); err == nil {
		t.Error("plan accepted a NaN launch time")
	}
	if _, err := plan(1e-3, 1e-6, calibrationLimits{}); err == nil {
		t.Error("plan accepted zero limits")
	}
}

func TestPlanKeepsBudget(t *testing.T) {
	for _, s := range []Sampling{{}, quickEffort.Bandwidth} {
		lim := bandwidthLimits(s)
		for d := 1e-6; d < 1; d *= 3 {
			p, err := plan(d, 50e-6, lim)
			if err != nil {
				t.Fatal(err)
			}
			total := float64(p.Samples*p.Iterations) * d
			// Over budget only when the minimum sample count forces it.
			if total > lim.BudgetS && p.Samples > lim.MinSamples {
				t.Errorf("sampling %+v, dispatch %.3g s: %d x %d takes %.3g s, budget %.3g s",
					s, d, p.Samples, p.Iterations, total, lim.BudgetS)
			}
		}
	}
}

func TestShrinkElements(t *testing.T) {
	lim := bandwidthLimits(Sampling{})
	n := uint64(maxArrayBytes / ElementBytes)
	// Fast enough: unchanged.
	if got, tt := shrinkElements(lim.MaxDispatchS/2, n, lim); got != n || tt != lim.MaxDispatchS/2 {
		t.Errorf("fast dispatch shrank to %d (%.3g s)", got, tt)
	}
	// 8x too slow: an eighth, and the predicted time fits.
	got, tt := shrinkElements(8*lim.MaxDispatchS, n, lim)
	if got != n/8 || tt > lim.MaxDispatchS {
		t.Errorf("8x slow: got %d elements, %.3g s; want %d", got, tt, n/8)
	}
	// Hopelessly slow: stops at the floor, a multiple of the step.
	got, _ = shrinkElements(1e6, n, lim)
	if got < lim.MinElements || got/2 >= lim.MinElements || got%lim.ElementStep != 0 {
		t.Errorf("very slow: got %d elements, floor %d", got, lim.MinElements)
	}
}

func TestSamplesFor(t *testing.T) {
	lim := calibrationLimits{BudgetS: 0.5, MinSamples: 30, MaxSamples: 1000}
	cases := []struct {
		sampleS float64
		want    int
	}{
		{1, lim.MinSamples},
		{lim.BudgetS / 100, 100},
		{1e-9, lim.MaxSamples},
		{math.NaN(), lim.MinSamples},
	}
	for _, c := range cases {
		if got := samplesFor(c.sampleS, lim); got != c.want {
			t.Errorf("samplesFor(%v) = %d, want %d", c.sampleS, got, c.want)
		}
	}
}

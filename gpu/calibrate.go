package gpu

import (
	"cmp"
	"fmt"
	"math"
)

// calibrationLimits bound a calibration: a sample lasts max(MinSampleS,
// LaunchFactor round trips), a kernel's samples fit BudgetS, and a
// dispatch over MaxDispatchS halves the array (shrinkElements).
type calibrationLimits struct {
	MinSampleS             float64
	LaunchFactor           float64
	MaxDispatchS           float64
	MinElements            uint64
	ElementStep            uint64
	MaxIterations          int // dispatches per sample
	BudgetS                float64
	MinSamples, MaxSamples int
}

// Sampling bounds each kernel's samples in one probe family.
type Sampling struct {
	BudgetS                float64 // seconds of samples, unless MinSamples take longer
	MinSamples, MaxSamples int
}

// apply is l with the non-zero fields of s.
func (s Sampling) apply(l calibrationLimits) calibrationLimits {
	l.BudgetS, l.MinSamples = cmp.Or(s.BudgetS, l.BudgetS), cmp.Or(s.MinSamples, l.MinSamples)
	l.MaxSamples = cmp.Or(s.MaxSamples, l.MaxSamples)
	return l
}

type calibration struct {
	Iterations int // dispatches per timed sample
	Samples    int
}

func (l calibrationLimits) validate() error {
	if !(l.MinSampleS > 0) || l.LaunchFactor < 0 || !(l.MaxDispatchS > 0) || !(l.BudgetS > 0) ||
		l.MaxIterations < 1 || l.MinSamples < 1 || l.MaxSamples < l.MinSamples || l.ElementStep < 1 {
		return fmt.Errorf("gpu: invalid calibration limits %+v", l)
	}
	return nil
}

// plan turns a dispatch's and an empty round trip's seconds into a plan.
func plan(dispatchS, launchS float64, lim calibrationLimits) (calibration, error) {
	if err := lim.validate(); err != nil {
		return calibration{}, err
	}
	if !positiveFinite(dispatchS) || !(launchS >= 0) || math.IsInf(launchS, 0) {
		return calibration{}, fmt.Errorf("gpu: cannot calibrate from a dispatch of %v s (launch %v s)", dispatchS, launchS)
	}
	iters := iterationsFor(dispatchS, launchS, lim)
	return calibration{
		Iterations: iters,
		Samples:    samplesFor(float64(iters)*dispatchS, lim),
	}, nil
}

// shrinkElements returns the elements and their expected dispatch time.
func shrinkElements(trialS float64, elements uint64, lim calibrationLimits) (uint64, float64) {
	n, t := elements, trialS
	for t > lim.MaxDispatchS {
		half := n / 2 / lim.ElementStep * lim.ElementStep
		if half < lim.MinElements || half == 0 {
			break
		}
		t *= float64(half) / float64(n)
		n = half
	}
	return n, t
}

func iterationsFor(dispatchS, launchS float64, lim calibrationLimits) int {
	target := max(lim.MinSampleS, lim.LaunchFactor*launchS)
	it := math.Ceil(target/dispatchS - 1e-9) // ignore float noise at exact ratios
	if it > float64(lim.MaxIterations) {
		return lim.MaxIterations
	}
	return max(1, int(it))
}

func samplesFor(sampleS float64, lim calibrationLimits) int {
	n := math.Floor(lim.BudgetS / sampleS)
	switch {
	case !(n >= float64(lim.MinSamples)): // also catches NaN
		return lim.MinSamples
	case n > float64(lim.MaxSamples):
		return lim.MaxSamples
	default:
		return int(n)
	}
}

func positiveFinite(x float64) bool {
	return x > 0 && !math.IsInf(x, 0)
}

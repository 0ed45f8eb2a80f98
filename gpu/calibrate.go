package gpu

import (
	"fmt"
	"math"
)

// Calibration and statistics: how many dispatches make a timed sample, how
// many samples to take, and how samples become a schema.Stat.

// calibrationLimits bounds what a timed calibration may choose. A timed
// sample must last at least MinSampleS and at least LaunchFactor empty
// dispatch round trips, so launch overhead stays a small part of it; the
// samples of one kernel together should fit BudgetS, within MinSamples and
// MaxSamples.
type calibrationLimits struct {
	// MinSampleS is the shortest a timed sample may be, in seconds.
	MinSampleS float64
	// LaunchFactor: a sample lasts at least this many empty round trips.
	LaunchFactor float64
	// MaxDispatchS: a single dispatch longer than this halves the array.
	MaxDispatchS float64
	// MinElements is the smallest array, in elements, shrinking may reach.
	MinElements uint64
	// ElementStep: the array's element count stays a multiple of this.
	ElementStep uint64
	// MaxIterations caps dispatches per sample.
	MaxIterations int
	// BudgetS is the timed seconds all samples of one kernel should take.
	BudgetS float64
	// MinSamples and MaxSamples bound the number of samples kept.
	MinSamples, MaxSamples int
}

// calibration is what the calibration chose for one kernel.
type calibration struct {
	// Iterations is the number of dispatches in one timed sample.
	Iterations int
	// Samples is the number of timed samples to keep.
	Samples int
}

// validate rejects limits that cannot give a sensible plan.
func (l calibrationLimits) validate() error {
	if !(l.MinSampleS > 0) || l.LaunchFactor < 0 || !(l.MaxDispatchS > 0) || !(l.BudgetS > 0) ||
		l.MaxIterations < 1 || l.MinSamples < 1 || l.MaxSamples < l.MinSamples || l.ElementStep < 1 {
		return fmt.Errorf("gpu: invalid calibration limits %+v", l)
	}
	return nil
}

// plan turns a trial (one dispatch takes dispatchS seconds; an empty
// dispatch round trip takes launchS) into a sampling plan: repeat the
// dispatch until a sample lasts max(MinSampleS, LaunchFactor*launchS), at
// most MaxIterations times, then take as many samples as fit BudgetS within
// [MinSamples, MaxSamples].
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

// shrinkElements halves the array while one dispatch would take longer than
// MaxDispatchS and the half stays at or above MinElements, keeping the count
// a multiple of ElementStep. It returns the count and the dispatch time
// expected for it (time taken as proportional to size).
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

// iterationsFor is how many dispatches of dispatchS seconds make a sample of
// at least max(MinSampleS, LaunchFactor*launchS), capped at MaxIterations.
func iterationsFor(dispatchS, launchS float64, lim calibrationLimits) int {
	target := max(lim.MinSampleS, lim.LaunchFactor*launchS)
	it := math.Ceil(target/dispatchS - 1e-9) // ignore float noise at exact ratios
	if it > float64(lim.MaxIterations) {
		return lim.MaxIterations
	}
	return max(1, int(it))
}

// samplesFor is how many samples of sampleS seconds fit BudgetS, clamped to
// [MinSamples, MaxSamples].
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

// positiveFinite reports whether x is a positive finite number.
func positiveFinite(x float64) bool {
	return x > 0 && !math.IsInf(x, 0)
}

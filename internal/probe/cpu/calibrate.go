package cpu

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"sync"
	"time"
)

const (
	minSampleS     = 0.050   // the shortest timed sample, seconds
	sampleMargin   = 1.04    // calibration aims this far above minSampleS; take extends a short sample
	fullSampleS    = 0.075   // the default sample length, seconds
	minTrialS      = 0.005   // the trial that counts lasts this long; trials are discarded warm-up
	maxRepetitions = 1 << 40 // bounds one sample's repetitions
)

// samplePlan is how many timed samples a kernel keeps and how long each lasts.
type samplePlan struct {
	samples int
	targetS float64
}

func planFor(e Effort) samplePlan {
	return samplePlan{samples: cmp.Or(e.Samples, 5), targetS: max(cmp.Or(e.SampleS, fullSampleS), minSampleS*sampleMargin)}
}

// take runs the plan's samples, run(reps, last) timing reps repetitions whose
// work is amount(reps), and returns their rates. A sample shorter than
// minSampleS is extended at once by the repetitions still missing and counts as
// one; later samples start from the extended count.
func (p samplePlan) take(ctx context.Context, reps int64, run func(reps int64, last bool) (float64, error),
	amount func(reps int64) float64) ([]float64, error) {
	rates := make([]float64, 0, p.samples)
	for len(rates) < p.samples {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		last := len(rates) == p.samples-1
		secs, work, total := 0.0, 0.0, int64(0)
		for more := reps; more > 0; {
			s, err := run(more, last)
			if err != nil {
				return nil, err
			}
			secs, work, total = secs+s, work+amount(more), total+more
			if more, err = extension(secs, total, p.targetS); err != nil {
				return nil, err
			}
		}
		rates = append(rates, work/secs)
		reps = total
	}
	return rates, nil
}

// extension is how many more repetitions a sample of total that lasted secs
// needs to reach minSampleS, aiming for targetS; 0 when it is long enough.
func extension(secs float64, total int64, targetS float64) (int64, error) {
	if secs >= minSampleS {
		return 0, nil
	}
	want, err := repsFor(secs, total, targetS)
	if err != nil {
		return 0, err
	}
	return max(1, want-total), nil
}

// repsFor is how many repetitions, at least one, make a sample last targetS
// when a trial of trialReps took trialS seconds.
func repsFor(trialS float64, trialReps int64, targetS float64) (int64, error) {
	if !(trialS > 0) || math.IsInf(trialS, 0) || trialReps < 1 || !(targetS > 0) {
		return 0, fmt.Errorf("cpubench: cannot calibrate from %d repetitions in %v s for %v s", trialReps, trialS, targetS)
	}
	reps := math.Ceil(targetS / trialS * float64(trialReps))
	if reps > maxRepetitions {
		return 0, fmt.Errorf("cpubench: calibration wants %g repetitions (trial of %d took %v s)", reps, trialReps, trialS)
	}
	return max(1, int64(reps)), nil
}

// calibrate doubles the repetitions from first until a trial lasts minTrialS
// and returns what a sample of targetS needs at that rate.
func calibrate(first int64, targetS float64, run func(reps int64) (float64, error)) (int64, error) {
	if first < 1 {
		return 0, fmt.Errorf("cpubench: calibration from %d repetitions", first)
	}
	for reps := first; ; reps *= 2 {
		secs, err := run(reps)
		if err != nil {
			return 0, err
		}
		if secs >= minTrialS || reps >= maxRepetitions/2 {
			return repsFor(secs, reps, targetS)
		}
	}
}

// splitIterations cuts total into equal calls of at most maxPerCall, rounding up.
func splitIterations(total, maxPerCall int64) (calls, perCall int64, err error) {
	if total < 1 || maxPerCall < 1 {
		return 0, 0, fmt.Errorf("cpubench: cannot split %d iterations into calls of %d", total, maxPerCall)
	}
	calls = (total + maxPerCall - 1) / maxPerCall
	perCall = (total + calls - 1) / calls
	return calls, perCall, nil
}

// runTeam runs work(w) for w in [0, n) on n goroutines released together and
// returns the seconds until the last returns, on the host monotonic clock.
// Goroutines are not pinned: the kernel places the thread each holds in cgo.
func runTeam(n int, work func(w int)) float64 {
	var ready, done sync.WaitGroup
	start := make(chan struct{})
	ready.Add(n)
	done.Add(n)
	for w := range n {
		go func() {
			defer done.Done()
			ready.Done()
			<-start
			work(w)
		}()
	}
	ready.Wait()
	t0 := time.Now()
	close(start)
	done.Wait()
	return time.Since(t0).Seconds()
}

func firstError(errs []error) error {
	for w, err := range errs {
		if err != nil {
			return fmt.Errorf("thread %d: %w", w, err)
		}
	}
	return nil
}

package cpu

import (
	"context"
	"fmt"
	"math"
	"sync"
	"time"
)

// Sampling: how long a timed sample runs, how many are kept, how a kernel's
// repetition count is calibrated, how samples become a schema.Stat, and the
// team of goroutines that runs one sample on every thread.

const (
	// minSampleS is the shortest a timed sample may be, in seconds.
	minSampleS = 0.050
	// sampleMargin: calibration aims this much above minSampleS, so clock
	// jitter between calibration and sample rarely pushes a sample below;
	// one that falls below anyway is extended (see take).
	sampleMargin = 1.04
	// fullSampleS is the sample length of a full (not Quick) probe.
	fullSampleS = 0.075
	// minTrialS: the calibration trial that counts lasts at least this long.
	// The trials are the kernel's warm-up and are discarded.
	minTrialS = 0.005
	// maxRepetitions bounds the repetitions of one sample.
	maxRepetitions = 1 << 40
)

// samplePlan is how many timed samples each kernel keeps and how long each
// should last.
type samplePlan struct {
	samples int
	targetS float64
}

// planFor is the plan of a full or a Quick probe.
func planFor(quick bool) samplePlan {
	if quick {
		return samplePlan{samples: 3, targetS: minSampleS * sampleMargin}
	}
	return samplePlan{samples: 5, targetS: fullSampleS}
}

// take runs the plan's timed samples: run(reps, last) times reps
// repetitions (last marks the final sample) and amount(reps) is the work
// they do (bytes, operations). A sample that ends before minSampleS is
// extended at once by a second run of the repetitions still missing, and
// the two count as one sample (their work over their summed time); later
// samples start from the extended count. The rates, amount per second,
// are returned.
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

// extension is how many repetitions a sample of total repetitions that
// lasted secs still needs to reach minSampleS, aiming for targetS; 0 when
// it is long enough.
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

// repsFor is how many repetitions make a sample last targetS, when a trial
// of trialReps repetitions took trialS seconds: at least one, rounded up.
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

// calibrate runs trials of first, 2*first, 4*first... repetitions until
// one lasts minTrialS, and returns the repetitions a sample of targetS
// needs by that trial's rate. The trials warm the kernel up.
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

// splitIterations cuts total iterations into calls of at most maxPerCall
// each, all equal, rounding total up so that none is lost.
func splitIterations(total, maxPerCall int64) (calls, perCall int64, err error) {
	if total < 1 || maxPerCall < 1 {
		return 0, 0, fmt.Errorf("cpubench: cannot split %d iterations into calls of %d", total, maxPerCall)
	}
	calls = (total + maxPerCall - 1) / maxPerCall
	perCall = (total + calls - 1) / calls
	return calls, perCall, nil
}

// runTeam runs work(w) for w in [0, n) on n goroutines at once and returns
// the seconds from releasing them, all started and parked, until the last
// one returned, on the host monotonic clock (schema.TimingHostWallClock).
// The goroutines are not pinned to cores: a worker inside a cgo call holds
// its own OS thread, and the kernel spreads those threads over the CPUs.
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

// firstError returns the first non-nil error of per-worker errors.
func firstError(errs []error) error {
	for w, err := range errs {
		if err != nil {
			return fmt.Errorf("thread %d: %w", w, err)
		}
	}
	return nil
}

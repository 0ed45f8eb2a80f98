//go:build explore

package linkpaths

import (
	"context"
	"errors"
	"fmt"
	"time"

	vulkan "github.com/everycycle/appraise/coopmat/vk"
	"github.com/everycycle/appraise/internal/measure/stats"
	"github.com/everycycle/appraise/schema"
)

// latencyMethod is one way of doing a timed operation: once does it, checks
// it and returns its host wall-clock seconds.
type latencyMethod struct {
	path string
	once func() (float64, error)
}

// Trial of the latency methods: warm discarded and runs timed rounds of
// each, round robin so that drift in the machine hits them alike.
const (
	latencyTrialWarm      = 5
	latencyTrialRuns      = 21
	latencyTrialQuickRuns = 7
)

// fastestLatency tries every method (when there is more than one) and
// samples the one with the lowest median: latencyWarm discarded runs, then n timed ones. The trial and the
// samples each follow o.Warmup of sustained runs (round robin over the
// methods, then of the chosen one), as every probe does: a GPU idling
// between probes runs short operations at low clocks.
func fastestLatency(ctx context.Context, ms []latencyMethod, o TransferOptions) (latencyMethod, schema.Stat, error) {
	runs, n := latencyTrialRuns, latencySamples
	if o.Quick {
		runs, n = latencyTrialQuickRuns, latencyQuickSamples
	}
	switch len(ms) {
	case 0:
		return latencyMethod{}, schema.Stat{}, errors.New("no path to measure")
	case 1:
		st, err := sampleLatency(ctx, ms[0], o.warmup(), n)
		return ms[0], st, err
	}
	fns := make([]func() (float64, error), len(ms))
	for i, m := range ms {
		fns[i] = func() (float64, error) { return runLatency(ctx, m) }
	}
	best, err := fastestOf(ctx, fns, o.warmup(), latencyTrialWarm, runs)
	if err != nil {
		return latencyMethod{}, schema.Stat{}, err
	}
	st, err := sampleLatency(ctx, ms[best], o.warmup(), n)
	return ms[best], st, err
}

// fastestOf is a timed trial of fns, each of which does one thing and
// returns its seconds: warmup's worth of them round robin, then warm + runs
// rounds of each, round robin so that drift in the machine hits them
// alike, the first warm rounds discarded. It returns the index of the one
// with the lowest median.
func fastestOf(ctx context.Context, fns []func() (float64, error), warmup time.Duration, warm, runs int) (int, error) {
	next := 0
	err := vulkan.WarmUp(ctx, warmup, func() error {
		_, err := fns[next%len(fns)]()
		next++
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("warm-up: %w", err)
	}
	times := make([][]float64, len(fns))
	for r := range warm + runs {
		for i, fn := range fns {
			if err := ctx.Err(); err != nil {
				return 0, err
			}
			t, err := fn()
			if err != nil {
				return 0, err
			}
			if r >= warm {
				times[i] = append(times[i], t)
			}
		}
	}
	best := 0
	for i := range times {
		if stats.Median(times[i]) < stats.Median(times[best]) {
			best = i
		}
	}
	return best, nil
}

// sampleLatency runs m for warmup and latencyWarm more times, then n
// timed times.
func sampleLatency(ctx context.Context, m latencyMethod, warmup time.Duration, n int) (schema.Stat, error) {
	err := vulkan.WarmUp(ctx, warmup, func() error { _, err := runLatency(ctx, m); return err })
	if err != nil {
		return schema.Stat{}, fmt.Errorf("warm-up: %w", err)
	}
	secs := make([]float64, 0, n)
	for i := range latencyWarm + n {
		t, err := runLatency(ctx, m)
		if err != nil {
			return schema.Stat{}, err
		}
		if i >= latencyWarm {
			secs = append(secs, t)
		}
	}
	return stats.Summarize(secs)
}

func runLatency(ctx context.Context, m latencyMethod) (float64, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	t, err := m.once()
	if err != nil {
		return 0, fmt.Errorf("%s: %w", m.path, err)
	}
	return t, nil
}

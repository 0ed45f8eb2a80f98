package link

import (
	"context"
	"errors"
	"fmt"
	"time"

	vulkan "github.com/everycycle/appraise/coopmat/vk"
	"github.com/everycycle/appraise/internal/measure/stats"
	"github.com/everycycle/appraise/schema"
)

// latencyMethod is a timed, checked operation returning its host seconds.
type latencyMethod struct {
	path string
	once func() (float64, error)
}

// latencyFamily decides among ms by trial t after o.Warmup, keeps the
// lowest trial median and samples it afresh.
func latencyFamily(ctx context.Context, ms []latencyMethod, o TransferOptions, t trial) (Family, error) {
	if len(ms) == 0 {
		return Family{}, errors.New("no path to measure")
	}
	times, err := latencyTrialTimes(ctx, ms, o, t)
	if err != nil {
		return Family{}, err
	}
	cs := make([]Candidate, len(ms))
	for i, m := range ms {
		if cs[i].Trial, err = stats.Summarize(times[i]); err != nil {
			return Family{}, fmt.Errorf("%s: %w", m.path, err)
		}
		cs[i].Path, cs[i].Timing = m.path, schema.TimingHostWallClock
	}
	best := fastest(cs, false)
	st, err := sampleLatency(ctx, ms[best], o.warmup(), o.latencySamples())
	return family(cs, best, st), err
}

// latencyTrialTimes warms ms, then runs trial t: each one's kept seconds.
func latencyTrialTimes(ctx context.Context, ms []latencyMethod, o TransferOptions, t trial) ([][]float64, error) {
	start := t.now()
	next := 0
	err := vulkan.WarmUp(ctx, o.warmup(), func() error {
		_, err := runLatency(ctx, ms[next%len(ms)])
		next++
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("warm-up: %w", err)
	}
	times := make([][]float64, len(ms))
	_, err = t.run(ctx, start, func(kept bool) error {
		for i, m := range ms {
			s, err := runLatency(ctx, m)
			if err != nil {
				return err
			}
			if kept {
				times[i] = append(times[i], s)
			}
		}
		return nil
	})
	return times, err
}

// fastest is the candidate with the best trial median, the first of equals.
func fastest(cs []Candidate, higher bool) int {
	best := 0
	for i, c := range cs {
		m, b := c.Trial.Median, cs[best].Trial.Median
		if higher && m > b || !higher && m < b {
			best = i
		}
	}
	return best
}

func family(cs []Candidate, kept int, st schema.Stat) Family {
	f := Family{Candidate: cs[kept], Stat: st}
	for i, c := range cs {
		if i != kept {
			f.Others = append(f.Others, c)
		}
	}
	return f
}

// sampleLatency runs m for warmup and latencyWarm times, then n timed times.
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

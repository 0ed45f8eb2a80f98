package coopmat

import (
	"context"
	"fmt"
	"math"
	"slices"
	"time"

	vk "github.com/vulkan-go/vulkan"

	"github.com/everycycle/appraise/schema"
)

// Timing limits: a GPU idles at low clocks, so every measurement starts with
// at least MinWarmup of sustained load, and keeps at least MinSamples.
const (
	MinWarmup  = 250 * time.Millisecond
	MinSamples = 5
)

// Timing says how long to warm up and how many samples to keep.
type Timing struct {
	// Warmup is the sustained load before timing (raised to MinWarmup).
	Warmup time.Duration
	// Samples is the number of timed samples kept (raised to MinSamples).
	Samples int
	// SampleTime is the target duration of one sample; dispatches are
	// repeated within one submission to reach it.
	SampleTime time.Duration
}

func (t Timing) normalized() Timing {
	t.Warmup = max(t.Warmup, MinWarmup)
	t.Samples = max(t.Samples, MinSamples)
	if t.SampleTime <= 0 {
		t.SampleTime = 20 * time.Millisecond
	}
	return t
}

// measurement is the outcome of timing one kernel.
type measurement struct {
	Rate    schema.Stat // operations per second
	Method  schema.TimingMethod
	Repeats int // dispatches per sample
}

// stat summarises samples (which must be non-empty).
func stat(samples []float64) schema.Stat {
	s := slices.Clone(samples)
	slices.Sort(s)
	med := s[len(s)/2]
	if len(s)%2 == 0 {
		med = (s[len(s)/2-1] + s[len(s)/2]) / 2
	}
	return schema.Stat{Samples: len(s), Median: med, Min: s[0], Max: s[len(s)-1]}
}

// measure times k dispatched over groups, counting ops operations per
// dispatch. Warm-up runs are discarded.
func (d *Device) measure(ctx context.Context, k *Kernel, groups [3]uint32, ops float64, tm Timing) (measurement, error) {
	tm = tm.normalized()
	t, err := d.newTimer()
	if err != nil {
		return measurement{}, err
	}
	defer t.release()
	c, err := d.newCommands()
	if err != nil {
		return measurement{}, err
	}
	defer c.release()
	recorded := 0
	run := func(reps int) (float64, error) {
		if reps != recorded {
			if err := c.record(func(cb vk.CommandBuffer) { recordRepeats(cb, t, k, groups, reps) }); err != nil {
				return 0, err
			}
			recorded = reps
		}
		host, err := c.submit()
		if err != nil {
			return 0, err
		}
		return t.seconds(host)
	}
	repsFor := func(one float64) int {
		return min(max(int(math.Ceil(tm.SampleTime.Seconds()/math.Max(one, 1e-7))), 1), 4096)
	}
	one, err := run(1)
	if err != nil {
		return measurement{}, err
	}
	reps := repsFor(one)
	var last float64
	if err := warmUp(ctx, tm.Warmup, func() error { last, err = run(reps); return err }); err != nil {
		return measurement{}, err
	}
	// Recalibrate at warm clocks so that each sample lasts about SampleTime.
	reps = repsFor(last / float64(reps))
	rates := make([]float64, 0, tm.Samples)
	for range tm.Samples {
		if err := ctx.Err(); err != nil {
			return measurement{}, err
		}
		s, err := run(reps)
		if err != nil {
			return measurement{}, err
		}
		if s <= 0 {
			return measurement{}, fmt.Errorf("coopmat: non-positive sample duration %g s", s)
		}
		rates = append(rates, float64(reps)*ops/s)
	}
	return measurement{Rate: stat(rates), Method: t.method(), Repeats: reps}, nil
}

// warmUp repeats fn until d has passed (at least once).
func warmUp(ctx context.Context, d time.Duration, fn func() error) error {
	start := time.Now()
	for first := true; first || time.Since(start) < d; first = false {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := fn(); err != nil {
			return err
		}
	}
	return nil
}

func recordRepeats(cb vk.CommandBuffer, t *timer, k *Kernel, groups [3]uint32, reps int) {
	t.begin(cb)
	for i := range reps {
		if i > 0 {
			memoryBarrier(cb, vk.AccessShaderWriteBit|vk.AccessShaderReadBit, vk.AccessShaderWriteBit|vk.AccessShaderReadBit,
				vk.PipelineStageComputeShaderBit, vk.PipelineStageComputeShaderBit)
		}
		k.dispatch(cb, groups)
	}
	t.end(cb)
}

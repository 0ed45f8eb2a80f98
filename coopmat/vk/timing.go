package vk

import (
	"context"
	"fmt"
	"math"
	"time"

	vk "github.com/vulkan-go/vulkan"

	"github.com/everycycle/appraise/internal/measure/stats"
	"github.com/everycycle/appraise/schema"
)

// Every measurement starts with at least MinWarmup of sustained load (an
// idle GPU clocks low) and keeps at least MinSamples.
const (
	MinWarmup  = 250 * time.Millisecond
	MinSamples = 5
)

// SoftwareMinWarmup is MinWarmup on a CPU device, which has no clocks to raise.
const SoftwareMinWarmup = 50 * time.Millisecond

// Timing says how long to warm up and how many samples to keep.
type Timing struct {
	Warmup     time.Duration
	Samples    int
	SampleTime time.Duration // target length of one sample
}

// normalized raises t to the minimums of a device, a CPU device when cpu is set.
func (t Timing) normalized(cpu bool) Timing {
	t.Warmup = max(t.Warmup, minWarmup(cpu))
	t.Samples = max(t.Samples, MinSamples)
	if t.SampleTime <= 0 {
		t.SampleTime = 20 * time.Millisecond
	}
	return t
}

func minWarmup(cpu bool) time.Duration {
	if cpu {
		return SoftwareMinWarmup
	}
	return MinWarmup
}

// measurement is the outcome of timing one kernel.
type measurement struct {
	Rate    schema.Stat // operations per second
	Method  schema.TimingMethod
	Repeats int // dispatches per sample
}

// maxDispatches bounds the dispatches of one sample.
const maxDispatches = 4096

// repsFor is the dispatches that make a sample of tm.SampleTime when one
// takes sample seconds, within [1, maxDispatches].
func repsFor(sample float64, tm Timing) int {
	return min(max(int(math.Ceil(tm.SampleTime.Seconds()/math.Max(sample, 1e-7))), 1), maxDispatches)
}

// Measure times k dispatched over groups, counting ops per dispatch, as
// RunAlternating times one run.
func (d *Device) Measure(ctx context.Context, k *Kernel, groups [3]uint32, ops float64, tm Timing) (measurement, error) {
	tm = tm.normalized(d.Info.Type == "cpu")
	c, err := d.NewCommands()
	if err != nil {
		return measurement{}, err
	}
	defer c.Release()
	t, err := d.newTimer(uint32(tm.Samples) + 1)
	if err != nil {
		return measurement{}, err
	}
	defer t.Release()
	rates, reps, err := d.alternate(ctx, c, t, []*Kernel{k}, []KernelRun{{Groups: groups, Ops: ops}}, tm)
	if err != nil {
		return measurement{}, err
	}
	st, err := stats.Summarize(rates[0])
	if err != nil {
		return measurement{}, fmt.Errorf("vulkan: %w", err)
	}
	return measurement{Rate: st, Method: t.Method(), Repeats: reps[0]}, nil
}

// dispatchN records n dispatches, each after a barrier (first: the first too).
func dispatchN(cb vk.CommandBuffer, k *Kernel, groups [3]uint32, n int, first bool) {
	for i := range n {
		if i > 0 || !first {
			MemoryBarrier(cb, vk.AccessShaderWriteBit|vk.AccessShaderReadBit, vk.AccessShaderWriteBit|vk.AccessShaderReadBit,
				vk.PipelineStageComputeShaderBit, vk.PipelineStageComputeShaderBit)
		}
		k.Dispatch(cb, groups)
	}
}

// WarmUp repeats fn until d has passed (at least once).
func WarmUp(ctx context.Context, d time.Duration, fn func() error) error {
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

// RunAlternating times runs in turn: each of tm.Samples rounds holds one
// sample of every run, back to back, so that a device whose speed drifts
// (a CPU device on a shared host) slows every run of a round alike. It
// returns each run's last output and rates[run][round] in operations per
// second.
func (d *Device) RunAlternating(ctx context.Context, runs []KernelRun, tm Timing) ([][]byte, [][]float64, error) {
	tm = tm.normalized(d.Info.Type == "cpu")
	bs := make([]*bound, 0, len(runs))
	defer func() {
		for _, b := range bs {
			b.release()
		}
	}()
	ks := make([]*Kernel, len(runs))
	for i, r := range runs {
		b, err := d.bind(r)
		if err != nil {
			return nil, nil, err
		}
		bs = append(bs, b)
		ks[i] = b.k
	}
	c, err := d.NewCommands()
	if err != nil {
		return nil, nil, err
	}
	defer c.Release()
	t, err := d.newTimer(uint32(tm.Samples*len(runs)) + 1)
	if err != nil {
		return nil, nil, err
	}
	defer t.Release()
	rates, _, err := d.alternate(ctx, c, t, ks, runs, tm)
	if err != nil {
		return nil, nil, err
	}
	outs := make([][]byte, len(bs))
	for i, b := range bs {
		if outs[i], err = b.output(); err != nil {
			return nil, nil, err
		}
	}
	return outs, rates, nil
}

// alternate is RunAlternating's and Measure's timing: each kernel in turn,
// as samples of tm.SampleTime, until tm.Warmup has passed; then the rounds
// in one submission (one submission a sample where the device has no
// timestamps). It returns rates[kernel][round] and each kernel's
// dispatches per sample.
func (d *Device) alternate(ctx context.Context, c *Commands, t *Timer, ks []*Kernel, runs []KernelRun, tm Timing) ([][]float64, []int, error) {
	reps := make([]int, len(ks))
	err := WarmUp(ctx, tm.Warmup, func() error {
		for i, k := range ks {
			n := max(reps[i], 1)
			s, err := d.timeDispatches(c, t, k, runs[i], n)
			if err != nil {
				return err
			}
			reps[i] = repsFor(s/float64(n), tm)
		}
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	var secs []float64
	if t.Pool == nil {
		for range tm.Samples {
			for i, k := range ks {
				s, err := d.timeDispatches(c, t, k, runs[i], reps[i])
				if err != nil {
					return nil, nil, err
				}
				secs = append(secs, s)
			}
		}
	} else if secs, err = d.runRounds(c, t, ks, runs, reps, tm.Samples); err != nil {
		return nil, nil, err
	}
	rates := make([][]float64, len(ks))
	for j, s := range secs {
		if s <= 0 {
			return nil, nil, fmt.Errorf("vulkan: non-positive sample duration %g s", s)
		}
		i := j % len(ks)
		rates[i] = append(rates[i], float64(reps[i])*runs[i].Ops/s)
	}
	return rates, reps, nil
}

// timeDispatches is the seconds of n dispatches of k, by timestamps or the host clock.
func (d *Device) timeDispatches(c *Commands, t *Timer, k *Kernel, r KernelRun, n int) (float64, error) {
	if t.Pool == nil {
		if err := c.Record(func(cb vk.CommandBuffer) { dispatchN(cb, k, r.Groups, n, true) }); err != nil {
			return 0, err
		}
		host, err := c.Submit()
		return host.Seconds(), err
	}
	secs, err := d.runRounds(c, t, []*Kernel{k}, []KernelRun{r}, []int{n}, 1)
	if err != nil {
		return 0, err
	}
	return secs[0], nil
}

// runRounds runs samples rounds of reps[i] dispatches of each kernel in
// turn in one submission and returns each sample's seconds, round by round.
func (d *Device) runRounds(c *Commands, t *Timer, ks []*Kernel, runs []KernelRun, reps []int, samples int) ([]float64, error) {
	err := c.Record(func(cb vk.CommandBuffer) {
		t.Reset(cb)
		t.Stamp(cb, 0, vk.PipelineStageTopOfPipeBit)
		for s := range samples {
			for i, k := range ks {
				dispatchN(cb, k, runs[i].Groups, reps[i], s == 0 && i == 0)
				t.Stamp(cb, uint32(1+s*len(ks)+i), vk.PipelineStageBottomOfPipeBit)
			}
		}
	})
	if err != nil {
		return nil, err
	}
	if _, err := c.Submit(); err != nil {
		return nil, err
	}
	return t.Intervals(uint32(samples*len(ks)) + 1)
}

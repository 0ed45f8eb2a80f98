package gpu

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"time"

	"github.com/cogentcore/webgpu/wgpu"
	"github.com/everycycle/appraise/schema"
)

// GPU timestamp ticks are taken as nanoseconds only after a workload of at
// least clockCheckS, timed both ways clockCheckTrials times, shows GPU time
// within the host's submit-to-done time and at least minClockRatio of it.
// GPU time may exceed host time by maxClockRatio plus clockSlackS, for the
// host clock's granularity.
const (
	clockCheckS      = 20e-3
	clockCheckTrials = 3
	minClockRatio    = 0.5
	maxClockRatio    = 1.01
	clockSlackS      = 10e-6
	clockScratch     = 64 << 20
)

// gpuClock is a two-entry timestamp query set and its buffers.
type gpuClock struct {
	qs      *wgpu.QuerySet
	resolve *wgpu.Buffer
	read    *wgpu.Buffer
}

func (c *gpuClock) release() {
	for _, b := range []*wgpu.Buffer{c.read, c.resolve} {
		if b != nil {
			b.Release()
		}
	}
	if c.qs != nil {
		c.qs.Release()
	}
}

func (d *Device) newClock() (*gpuClock, error) {
	qs, err := d.dev.CreateQuerySet(&wgpu.QuerySetDescriptor{Label: "timestamps", Type: wgpu.QueryTypeTimestamp, Count: 2})
	if err != nil {
		return nil, fmt.Errorf("webgpu: CreateQuerySet: %w", err)
	}
	c := &gpuClock{qs: qs}
	size := uint64(2 * wgpu.QuerySize)
	if c.resolve, err = d.newBuffer("timestamps-resolve", size, wgpu.BufferUsageQueryResolve|wgpu.BufferUsageCopySrc); err == nil {
		c.read, err = d.newBuffer("timestamps-read", size, wgpu.BufferUsageMapRead|wgpu.BufferUsageCopyDst)
	}
	if err != nil {
		c.release()
		return nil, err
	}
	return c, nil
}

type sample struct {
	wallS float64
	gpuS  float64 // zero without a clock
}

// measure times one submission of work by the host's clock and, when c is
// not nil, by GPU timestamps.
func (d *Device) measure(work func(*wgpu.CommandEncoder) error, c *gpuClock) (sample, error) {
	enc, err := d.encoder()
	if err != nil {
		return sample{}, err
	}
	defer enc.Release()
	if err := d.recordTimed(enc, work, c); err != nil {
		return sample{}, err
	}
	cb, err := finish(enc)
	if err != nil {
		return sample{}, err
	}
	defer cb.Release()
	start := time.Now()
	if err := d.submitWait(cb); err != nil {
		return sample{}, err
	}
	s := sample{wallS: time.Since(start).Seconds()}
	if c != nil {
		s.gpuS, err = d.readClock(c)
	}
	return s, err
}

func (d *Device) recordTimed(enc *wgpu.CommandEncoder, work func(*wgpu.CommandEncoder) error, c *gpuClock) error {
	if c == nil {
		return work(enc)
	}
	if err := enc.WriteTimestamp(c.qs, 0); err != nil {
		return fmt.Errorf("webgpu: WriteTimestamp: %w", err)
	}
	if err := work(enc); err != nil {
		return err
	}
	if err := enc.WriteTimestamp(c.qs, 1); err != nil {
		return fmt.Errorf("webgpu: WriteTimestamp: %w", err)
	}
	if err := enc.ResolveQuerySet(c.qs, 0, 2, c.resolve, 0); err != nil {
		return fmt.Errorf("webgpu: ResolveQuerySet: %w", err)
	}
	return copyBuffer(enc, c.resolve, 0, c.read, 2*wgpu.QuerySize)
}

// readClock returns the timestamps' difference in seconds. It fails unless
// they increase.
func (d *Device) readClock(c *gpuClock) (float64, error) {
	var t0, t1 uint64
	err := d.mapRead(c.read, 2*wgpu.QuerySize, func(b []byte) error {
		t0, t1 = binary.LittleEndian.Uint64(b), binary.LittleEndian.Uint64(b[8:])
		return nil
	})
	if err != nil {
		return 0, err
	}
	if t1 <= t0 {
		return 0, fmt.Errorf("gpu: timestamps do not increase: %d then %d", t0, t1)
	}
	return float64(t1-t0) * 1e-9, nil
}

// timeWork times one submission of work, in seconds, by the device's timing
// method. GPU time must fit inside the host's submit-to-done time.
func (d *Device) timeWork(work func(*wgpu.CommandEncoder) error) (float64, error) {
	s, err := d.measure(work, d.clock)
	if err != nil {
		return 0, err
	}
	if d.clock == nil {
		return s.wallS, nil
	}
	if s.gpuS > s.wallS*maxClockRatio+clockSlackS {
		return 0, fmt.Errorf("gpu: GPU timestamps say %.6g s but the host saw the work done in %.6g s", s.gpuS, s.wallS)
	}
	return s.gpuS, nil
}

func checkClockSample(s sample) error {
	ok := s.gpuS > 0 && !math.IsInf(s.gpuS, 0) &&
		s.gpuS <= s.wallS*maxClockRatio+clockSlackS &&
		s.gpuS >= s.wallS*minClockRatio
	if !ok {
		return fmt.Errorf("GPU timestamps measured %.6g s for work the host saw take %.6g s", s.gpuS, s.wallS)
	}
	return nil
}

// setupTiming times kernels by GPU timestamps where the device has them and
// they pass the check, else by the host clock.
func (d *Device) setupTiming() error {
	d.timing = schema.TimingQueueWallClock
	if !d.features.TimestampQuery {
		d.timingNote = "the adapter offers no timestamp queries; kernels are timed from submit to queue done"
		return nil
	}
	c, err := d.newClock()
	if err != nil {
		d.timingNote = "timestamp queries could not be set up (" + err.Error() + "); kernels are timed from submit to queue done"
		return nil
	}
	reason, err := d.vetClock(c)
	if err != nil || reason != "" {
		c.release()
		d.timingNote = reason + "; kernels are timed from submit to queue done"
		return err
	}
	d.clock = c
	d.timing = schema.TimingGPUTimestamp
	d.timingNote = fmt.Sprintf("GPU timestamps agreed with the host clock over %d workloads of at least %g ms", clockCheckTrials, clockCheckS*1e3)
	return nil
}

// vetClock returns why the GPU clock cannot be trusted, or "". Errors are
// failures that are not the timestamps' fault.
func (d *Device) vetClock(c *gpuClock) (string, error) {
	size := min(uint64(clockScratch), d.memLimit/4, d.limits.MaxBufferBytes) &^ 3
	scratch, err := d.storageBuffer("clock-check", size)
	if err != nil {
		return "", err
	}
	defer scratch.Release()
	clear := func(reps int) func(*wgpu.CommandEncoder) error {
		return func(enc *wgpu.CommandEncoder) error { return clearRepeated(enc, scratch, size, reps) }
	}
	if _, err := d.measure(clear(1), nil); err != nil {
		return "", err // the workload itself fails: not a timestamp problem
	}
	reps, err := d.repsFor(clear)
	if err != nil {
		return "", err
	}
	for i := 0; i < clockCheckTrials; i++ {
		s, err := d.measure(clear(reps), c)
		if err == nil {
			err = checkClockSample(s)
		}
		if err != nil {
			return err.Error(), nil
		}
	}
	return "", nil
}

func (d *Device) repsFor(work func(reps int) func(*wgpu.CommandEncoder) error) (int, error) {
	const maxReps = 1 << 16
	reps := 1
	for {
		s, err := d.measure(work(reps), nil)
		if err != nil {
			return 0, err
		}
		if s.wallS >= clockCheckS || reps >= maxReps {
			return reps, nil
		}
		grow := int(math.Ceil(1.5 * clockCheckS / max(s.wallS, 1e-9)))
		reps = min(maxReps, reps*min(max(grow, 2), 64))
	}
}

func clearRepeated(enc *wgpu.CommandEncoder, b *wgpu.Buffer, size uint64, reps int) error {
	for i := 0; i < reps; i++ {
		if err := enc.ClearBuffer(b, 0, size); err != nil {
			return fmt.Errorf("webgpu: ClearBuffer: %w", err)
		}
	}
	return nil
}

// warmUp keeps ds running for at least dur (at most SoftwareWarmUp on a
// software adapter) and returns one dispatch's time in the last
// submission.
func (d *Device) warmUp(ctx context.Context, ds dispatch, dur time.Duration, maxBatch int) (float64, error) {
	dur = d.warmUpTime(dur)
	start := time.Now()
	batch := 1
	for {
		if err := ctx.Err(); err != nil {
			return 0, err
		}
		t, err := d.timeWork(work(ds, batch))
		if err != nil {
			return 0, err
		}
		per := t / float64(batch)
		if time.Since(start) >= dur {
			return per, nil
		}
		batch = max(1, min(maxBatch, int(warmUpBatchS/per)))
	}
}

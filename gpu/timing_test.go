package gpu

import (
	"math"
	"testing"
	"time"

	"github.com/cogentcore/webgpu/wgpu"
	"github.com/everycycle/appraise/schema"
)

func TestCheckClockSample(t *testing.T) {
	cases := []struct {
		s  sample
		ok bool
	}{
		{sample{wallS: 20e-3, gpuS: 19.7e-3}, true},
		{sample{wallS: 20e-3, gpuS: 20.1e-3}, true},  // within 1 % + 10 µs
		{sample{wallS: 20e-3, gpuS: 21e-3}, false},   // GPU longer than the host saw
		{sample{wallS: 20e-3, gpuS: 0.38e-3}, false}, // ticks of 52 ns read as ns
		{sample{wallS: 20e-3, gpuS: 0}, false},
		{sample{wallS: 20e-3, gpuS: math.Inf(1)}, false},
		{sample{wallS: 20e-3, gpuS: math.NaN()}, false},
	}
	for _, c := range cases {
		if err := checkClockSample(c.s); (err == nil) != c.ok {
			t.Errorf("checkClockSample(%+v) = %v, want ok %t", c.s, err, c.ok)
		}
	}
}

// TestTimingMethod: the device picked a method and explains it, and timing
// real work gives a positive duration.
func TestTimingMethod(t *testing.T) {
	d := newDevice(t)
	switch d.Timing() {
	case schema.TimingGPUTimestamp:
		if d.clock == nil {
			t.Fatal("GPU timestamps chosen without a clock")
		}
	case schema.TimingQueueWallClock:
		if d.clock != nil {
			t.Fatal("host clock chosen but a GPU clock is held")
		}
	default:
		t.Fatalf("unexpected timing method %q", d.Timing())
	}
	if d.TimingNote() == "" {
		t.Error("no timing note")
	}
	buf, err := d.storageBuffer("t", 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	defer buf.Release()
	s, err := d.timeWork(func(enc *wgpu.CommandEncoder) error { return clearRepeated(enc, buf, 1<<20, 4) })
	if err != nil || !(s > 0) {
		t.Fatalf("timeWork = %v, %v", s, err)
	}
}

// TestWarmUpTime: a GPU warms up as long as asked; a software adapter at
// most SoftwareWarmUp, never longer than asked.
func TestWarmUpTime(t *testing.T) {
	gpu, sw := &Device{}, &Device{}
	sw.info.Software = true
	for _, tc := range []struct {
		d         *Device
		dur, want time.Duration
	}{
		{gpu, warmUp, warmUp},
		{gpu, roofPointWarmUp, roofPointWarmUp},
		{sw, warmUp, SoftwareWarmUp},
		{sw, 10 * time.Millisecond, 10 * time.Millisecond},
		{sw, 0, 0},
	} {
		if got := tc.d.warmUpTime(tc.dur); got != tc.want {
			t.Errorf("software %t, %v: %v, want %v", tc.d.info.Software, tc.dur, got, tc.want)
		}
	}
}

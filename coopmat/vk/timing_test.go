package vk

import (
	"testing"
	"time"
)

// TestTimingNormalized: a warm-up is raised to MinWarmup, or to
// SoftwareMinWarmup on a CPU device; a longer one is kept, and the
// samples are raised to MinSamples either way.
func TestTimingNormalized(t *testing.T) {
	for _, c := range []struct {
		in   time.Duration
		cpu  bool
		want time.Duration
	}{{0, false, MinWarmup}, {0, true, SoftwareMinWarmup}, {time.Second, true, time.Second}, {10 * time.Millisecond, false, MinWarmup}} {
		got := Timing{Warmup: c.in}.normalized(c.cpu)
		if got.Warmup != c.want || got.Samples != MinSamples {
			t.Errorf("warm-up %v, cpu %t: got %v and %d samples, want %v and %d", c.in, c.cpu, got.Warmup, got.Samples, c.want, MinSamples)
		}
	}
}

// TestRepsFor: a sample's dispatches round up to fill tm.SampleTime, at
// least one and at most maxDispatches.
func TestRepsFor(t *testing.T) {
	tm := Timing{Warmup: 250 * time.Millisecond, Samples: 5, SampleTime: 20 * time.Millisecond}
	for _, c := range []struct {
		sample float64
		want   int
	}{{0.004, 5}, {0.0041, 5}, {0.5, 1}, {1e-9, maxDispatches}, {0, maxDispatches}} {
		if got := repsFor(c.sample, tm); got != c.want {
			t.Errorf("repsFor(%g) = %d, want %d", c.sample, got, c.want)
		}
	}
}

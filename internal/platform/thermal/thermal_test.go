package thermal

import (
	"math"
	"testing"
	"time"
)

// series makes one point every 100 ms for soak, with throughput f(t).
func series(soak time.Duration, f func(time.Duration) float64) []Point {
	var ps []Point
	for t := 100 * time.Millisecond; t <= soak; t += 100 * time.Millisecond {
		ps = append(ps, Point{At: t, OpsPerS: f(t)})
	}
	return ps
}

func TestSteadyCardDoesNotThrottle(t *testing.T) {
	ps := series(60*time.Second, func(t time.Duration) float64 { return 1e12 * (1 + 0.01*math.Sin(float64(t))) })
	rs := []Reading{{At: time.Second, TemperatureC: 60, PowerW: 300}, {At: 59 * time.Second, TemperatureC: 71, PowerW: 310}}
	e, err := Compute(60*time.Second, ps, rs)
	if err != nil {
		t.Fatal(err)
	}
	if e.Throttled || math.Abs(e.ThrottledFraction-1) > 0.02 || e.PeakTemperatureC != 71 || e.SustainedPowerW != 310 {
		t.Fatalf("%+v", e)
	}
}

func TestThroughputDropCountsAsThrottle(t *testing.T) {
	ps := series(60*time.Second, func(t time.Duration) float64 {
		if t >= 20*time.Second {
			return 0.8e12
		}
		return 1e12
	})
	e, err := Compute(60*time.Second, ps, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !e.Throttled || e.TimeToThrottle != 20*time.Second || math.Abs(e.ThrottledFraction-0.8) > 1e-9 {
		t.Fatalf("%+v", e)
	}
	if !math.IsNaN(e.SustainedPowerW) || !math.IsNaN(e.PeakTemperatureC) {
		t.Fatalf("made-up power or temperature: %+v", e)
	}
}

// A dip shorter than Hold is noise, not throttling.
func TestShortDipIsNotThrottle(t *testing.T) {
	ps := series(30*time.Second, func(t time.Duration) float64 {
		if t > 10*time.Second && t < 12*time.Second {
			return 0.5e12
		}
		return 1e12
	})
	e, err := Compute(30*time.Second, ps, nil)
	if err != nil || e.Throttled {
		t.Fatalf("%+v %v", e, err)
	}
}

func TestDriverReasonCountsFirst(t *testing.T) {
	ps := series(60*time.Second, func(time.Duration) float64 { return 1e12 })
	rs := []Reading{{At: 5 * time.Second, Throttle: []string{"gpu_idle"}}, {At: 42 * time.Second, Throttle: []string{"sw_power_cap"}}}
	e, err := Compute(60*time.Second, ps, rs)
	if err != nil || !e.Throttled || e.TimeToThrottle != 42*time.Second {
		t.Fatalf("%+v %v", e, err)
	}
}

func TestTooShort(t *testing.T) {
	if _, err := Compute(time.Second, series(300*time.Millisecond, func(time.Duration) float64 { return 1 }), nil); err != ErrTooShort {
		t.Fatalf("err = %v", err)
	}
}

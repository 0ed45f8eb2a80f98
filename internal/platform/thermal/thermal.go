// Package thermal turns a soak, throughput sampled under sustained load beside
// the driver's telemetry, into the card's thermal envelope. Compute applies the
// rules; Card writes a soak as the card records it; Sampled reads a Telemetry.
package thermal

import (
	"errors"
	"math"
	"time"

	"github.com/everycycle/appraise/internal/measure/stats"
)

// Point is one timed piece of the sustained load.
type Point struct {
	At      time.Duration // since the load began
	OpsPerS float64       // of the piece of work that ended at At
}

// Reading is one sample of the driver's telemetry.
type Reading struct {
	At                   time.Duration // since the load began
	TemperatureC, PowerW float64       // NaN when the driver does not say
	Throttle             []string      // clock-limiting reasons the driver reports
}

// Rules of the envelope.
const (
	ColdWindow = 5 * time.Second // the load's start, after warm-up, that sets cold throughput
	// A device that stays below Drop × cold throughput for Hold has throttled.
	Drop         = 0.95
	Hold         = 3 * time.Second
	TailFraction = 0.25 // the load's end whose median is sustained throughput
)

// throttleReasons are the driver's reasons that mean the device slowed itself
// for power or heat.
var throttleReasons = map[string]bool{
	"sw_power_cap": true, "hw_slowdown": true, "sw_thermal_slowdown": true,
	"hw_thermal_slowdown": true, "hw_power_brake_slowdown": true,
}

// Envelope is a soak's outcome, before it is written into a report.
type Envelope struct {
	Soak              time.Duration
	Throttled         bool
	TimeToThrottle    time.Duration // meaningful only when Throttled
	ThrottledFraction float64
	SustainedPowerW   float64 // NaN when the driver gives no power
	PeakTemperatureC  float64 // NaN when the driver gives no temperature
	ColdOpsPerS       float64
	SustainedOpsPerS  float64
}

// ErrTooShort is returned when the soak has too few points to judge.
var ErrTooShort = errors.New("thermal: soak too short to judge")

// Compute applies the rules to a soak of length soak. Cold throughput is the
// median within ColdWindow of the start (or the first TailFraction, if
// shorter), sustained the median of the last TailFraction. The device
// throttled at the earlier of the driver's first power or thermal reason and
// the start of the first stretch of at least Hold below Drop × cold.
func Compute(soak time.Duration, points []Point, readings []Reading) (Envelope, error) {
	if len(points) < 4 || soak <= 0 {
		return Envelope{}, ErrTooShort
	}
	cold := window(points, 0, coldEnd(soak))
	tail := window(points, soak-time.Duration(float64(soak)*TailFraction), soak+time.Hour)
	if len(cold) == 0 || len(tail) == 0 {
		return Envelope{}, ErrTooShort
	}
	e := Envelope{Soak: soak, ColdOpsPerS: stats.Median(cold), SustainedOpsPerS: stats.Median(tail)}
	e.ThrottledFraction = e.SustainedOpsPerS / e.ColdOpsPerS
	at, dropped := firstDrop(points, Drop*e.ColdOpsPerS)
	if r, ok := firstReason(readings); ok && (!dropped || r < at) {
		at, dropped = r, true
	}
	e.Throttled, e.TimeToThrottle = dropped, at
	e.SustainedPowerW = medianOf(readings, soak-time.Duration(float64(soak)*TailFraction), func(r Reading) float64 { return r.PowerW })
	e.PeakTemperatureC = math.NaN()
	for _, r := range readings {
		if !math.IsNaN(r.TemperatureC) && (math.IsNaN(e.PeakTemperatureC) || r.TemperatureC > e.PeakTemperatureC) {
			e.PeakTemperatureC = r.TemperatureC
		}
	}
	return e, nil
}

func coldEnd(soak time.Duration) time.Duration {
	if short := time.Duration(float64(soak) * TailFraction); short < ColdWindow {
		return short
	}
	return ColdWindow
}

func window(ps []Point, from, to time.Duration) []float64 {
	var out []float64
	for _, p := range ps {
		if p.At >= from && p.At <= to {
			out = append(out, p.OpsPerS)
		}
	}
	return out
}

// firstDrop returns the start of the first stretch of at least Hold in which
// every point is below limit.
func firstDrop(ps []Point, limit float64) (time.Duration, bool) {
	start := -1
	for i, p := range ps {
		if p.OpsPerS >= limit {
			start = -1
			continue
		}
		if start < 0 {
			start = i
		}
		if p.At-ps[start].At >= Hold {
			return ps[start].At, true
		}
	}
	return 0, false
}

func firstReason(rs []Reading) (time.Duration, bool) {
	for _, r := range rs {
		for _, n := range r.Throttle {
			if throttleReasons[n] {
				return r.At, true
			}
		}
	}
	return 0, false
}

func medianOf(rs []Reading, from time.Duration, f func(Reading) float64) float64 {
	var xs []float64
	for _, r := range rs {
		if v := f(r); r.At >= from && !math.IsNaN(v) {
			xs = append(xs, v)
		}
	}
	if len(xs) == 0 {
		return math.NaN()
	}
	return stats.Median(xs)
}

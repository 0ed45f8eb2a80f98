package thermal

import (
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/everycycle/appraise/schema"
)

// Soak is a finished soak of any load, as the card records it.
type Soak struct {
	Duration time.Duration // how long the load ran
	Points   []Point       // its timed pieces of work, in order
	Workload string        // what the load was
	Probe    string        // the probe that ran it
	Check    *schema.Check // nil when the probe states none
}

// Card judges s by Compute's rules beside the readings of tel (nil when the
// driver offers none) and returns the card's thermal envelope and what it
// leaves absent. A soak too short to judge gives a nil envelope and an
// omission that says why, not an error.
func Card(s Soak, readings []Reading, tel Telemetry) (*schema.ThermalEnvelope, []schema.Omission, error) {
	e, err := Compute(s.Duration, s.Points, readings)
	if errors.Is(err, ErrTooShort) {
		return nil, []schema.Omission{{Field: "thermal",
			Reason: fmt.Sprintf("the %.1f s soak ran %d pieces of work, too few for the thermal rules; a longer --soak gives more", s.Duration.Seconds(), len(s.Points))}}, nil
	}
	if err != nil {
		return nil, nil, err
	}
	source := "none"
	if tel != nil {
		source = tel.Source()
	}
	t := envelope(e, len(s.Points), s.Workload, s.Probe, source)
	t.Timeline = timeline(Timeline(s.Duration, s.Points, readings))
	t.Check = s.Check
	if tel != nil {
		if w, err := tel.PowerLimitW(); err == nil && w > 0 {
			t.PowerLimitW = &w
			if p := t.SustainedPowerW; p != nil {
				f := *p / w
				t.PowerLimitFraction = &f
			}
		}
	}
	var absent []schema.Omission
	if !e.Throttled {
		absent = append(absent, schema.Omission{Field: "thermal.time_to_throttle_s",
			Reason: fmt.Sprintf("did not throttle during the %.0f s soak", e.Soak.Seconds())})
	}
	return t, absent, nil
}

func envelope(e Envelope, points int, workload, probe, source string) *schema.ThermalEnvelope {
	t := &schema.ThermalEnvelope{SoakS: e.Soak.Seconds(), Throttled: e.Throttled, ThrottledFraction: e.ThrottledFraction,
		ColdOpsPerS: e.ColdOpsPerS, SustainedOpsPerS: e.SustainedOpsPerS, Workload: workload, Points: points, Probe: probe, Telemetry: source}
	if e.Throttled {
		s := e.TimeToThrottle.Seconds()
		t.TimeToThrottleS = &s
	}
	if !math.IsNaN(e.SustainedPowerW) {
		t.SustainedPowerW = &e.SustainedPowerW
	}
	if !math.IsNaN(e.PeakTemperatureC) {
		t.PeakTemperatureC = &e.PeakTemperatureC
	}
	return t
}

// timeline converts the condensed soak for the card; NaN readings become
// absent fields.
func timeline(steps []Step) []schema.ThermalStep {
	out := make([]schema.ThermalStep, len(steps))
	for i, st := range steps {
		out[i] = schema.ThermalStep{AtS: st.At.Seconds(), OpsPerS: st.OpsPerS}
		if !math.IsNaN(st.TemperatureC) {
			out[i].TemperatureC = &steps[i].TemperatureC
		}
		if !math.IsNaN(st.PowerW) {
			out[i].PowerW = &steps[i].PowerW
		}
	}
	return out
}

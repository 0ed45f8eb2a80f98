package appraisal

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sync"
	"time"

	"github.com/everycycle/appraise/internal/platform/nvml"
	"github.com/everycycle/appraise/internal/platform/pci"
	"github.com/everycycle/appraise/internal/platform/thermal"
	"github.com/everycycle/appraise/internal/probe/webgpu"
	"github.com/everycycle/appraise/schema"
)

// Soak lengths: the default is long enough to see an air-cooled card
// begin to throttle; quick runs and software adapters (which have no
// thermal behaviour of their own) soak briefly.
const (
	DefaultSoak  = 120 * time.Second
	QuickSoak    = 10 * time.Second
	softwareSoak = 3 * time.Second
	telemetryGap = 500 * time.Millisecond
)

// soakProbe holds the device under sustained load, samples its throughput
// beside the driver's telemetry, and records the thermal envelope.
type soakProbe struct {
	duration  time.Duration
	telemetry telemetry                               // nil when the driver offers none
	step      func(stage string, done, total float64) // progress, never nil
}

// telemetry reads the driver's temperature, power and throttle reasons.
type telemetry interface {
	// read returns one reading; ok is false when nothing could be read.
	read() (r thermal.Reading, ok bool)
	// source names it for the report ("nvml", "hwmon").
	source() string
	// powerLimit is the board power limit the driver enforces, watts.
	powerLimit() (float64, error)
}

// nvmlTelemetry reads an NVIDIA device through NVML.
type nvmlTelemetry struct{ d *nvml.Device }

func (t nvmlTelemetry) source() string               { return "nvml" }
func (t nvmlTelemetry) powerLimit() (float64, error) { return t.d.PowerLimitW() }
func (t nvmlTelemetry) read() (thermal.Reading, bool) {
	s, err := t.d.Sample()
	return thermal.Reading{TemperatureC: s.TemperatureC, PowerW: s.PowerW, Throttle: s.ThrottleNames}, err == nil
}

// hwmonTelemetry reads a device's hwmon sensors (amdgpu and others); it
// has no throttle reasons, so the thermal rule relies on the throughput.
type hwmonTelemetry struct{ s *pci.Sensors }

func (t hwmonTelemetry) source() string               { return "hwmon" }
func (t hwmonTelemetry) powerLimit() (float64, error) { return t.s.PowerLimitW() }
func (t hwmonTelemetry) read() (thermal.Reading, bool) {
	s, err := t.s.Sample()
	return thermal.Reading{TemperatureC: s.TemperatureC, PowerW: s.PowerW}, err == nil
}

func (soakProbe) Name() string    { return "webgpu-soak" }
func (soakProbe) Version() string { return "1" }

func (p soakProbe) Run(ctx context.Context, d *webgpu.Device, v *schema.CapabilityVector) error {
	run, readings, err := sampled(p.telemetry, func() (soakRun, error) {
		onPoint := func(at time.Duration, _ float64) {
			p.step(p.Name(), at.Seconds(), p.duration.Seconds())
		}
		res, err := webgpu.Soak(ctx, d, webgpu.SoakOptions{Duration: p.duration, OnPoint: onPoint})
		if err != nil {
			return soakRun{}, err
		}
		points := make([]thermal.Point, len(res.Points))
		for i, pt := range res.Points {
			points[i] = thermal.Point{At: pt.At, OpsPerS: pt.OpsPerS}
		}
		return soakRun{duration: res.Duration, points: points, workload: res.Kernel, probe: p.Name()}, nil
	})
	if err != nil {
		return err
	}
	return recordSoak(run, readings, p.telemetry, v)
}

// soakRun is a finished soak of any load, as the thermal rules read it.
type soakRun struct {
	duration time.Duration
	points   []thermal.Point
	workload string        // what the load was, for the card
	probe    string        // the probe that ran it
	check    *schema.Check // the check of the load's output, when the probe states one
}

// sampled runs hold while reading tel every telemetryGap (nothing when
// tel is nil), and returns the readings beside hold's result.
func sampled(tel telemetry, hold func() (soakRun, error)) (soakRun, []thermal.Reading, error) {
	var (
		mu       sync.Mutex
		readings []thermal.Reading
	)
	start := time.Now()
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		sample(tel, start, stop, func(r thermal.Reading) { mu.Lock(); readings = append(readings, r); mu.Unlock() })
	}()
	run, err := hold()
	close(stop)
	<-done
	return run, readings, err
}

// recordSoak puts a finished soak's thermal envelope, judged from its
// points and the telemetry read beside it, into v, with the power limit
// the telemetry reports.
func recordSoak(run soakRun, readings []thermal.Reading, tel telemetry, v *schema.CapabilityVector) error {
	e, err := thermal.Compute(run.duration, run.points, readings)
	if errors.Is(err, thermal.ErrTooShort) {
		// Every piece was checked, but too few ran to judge an envelope
		// (a short --soak on a loaded host): the card says so instead of
		// signing one, and the rest of the appraisal stands.
		v.NotMeasured = append(v.NotMeasured, schema.Omission{Field: "thermal",
			Reason: fmt.Sprintf("the %.1f s soak ran %d pieces of work, too few for the thermal rules; a longer --soak gives more", run.duration.Seconds(), len(run.points))})
		return nil
	}
	if err != nil {
		return err
	}
	source := "none"
	if tel != nil {
		source = tel.source()
	}
	v.Thermal = envelope(e, len(run.points), run.workload, run.probe, source)
	v.Thermal.Timeline = timeline(thermal.Timeline(run.duration, run.points, readings))
	v.Thermal.Check = run.check
	if tel != nil {
		if w, err := tel.powerLimit(); err == nil && w > 0 {
			v.Thermal.PowerLimitW = &w
			if p := v.Thermal.SustainedPowerW; p != nil {
				f := *p / w
				v.Thermal.PowerLimitFraction = &f
			}
		}
	}
	if !e.Throttled {
		v.NotMeasured = append(v.NotMeasured, schema.Omission{Field: "thermal.time_to_throttle_s",
			Reason: fmt.Sprintf("did not throttle during the %.0f s soak", e.Soak.Seconds())})
	}
	return nil
}

// sample reads tel every telemetryGap until stop.
func sample(tel telemetry, start time.Time, stop <-chan struct{}, keep func(thermal.Reading)) {
	if tel == nil {
		return
	}
	t := time.NewTicker(telemetryGap)
	defer t.Stop()
	for {
		if r, ok := tel.read(); ok {
			r.At = time.Since(start)
			keep(r)
		}
		select {
		case <-stop:
			return
		case <-t.C:
		}
	}
}

func envelope(e thermal.Envelope, points int, workload, probe, source string) *schema.ThermalEnvelope {
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

// timeline converts the condensed soak for the report; NaN readings
// become absent fields.
func timeline(steps []thermal.Step) []schema.ThermalStep {
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

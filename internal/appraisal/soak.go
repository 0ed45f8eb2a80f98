package appraisal

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sync"
	"time"

	"github.com/everycycle/appraise/gpu"
	"github.com/everycycle/appraise/internal/nvml"
	"github.com/everycycle/appraise/internal/pci"
	"github.com/everycycle/appraise/internal/thermal"
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
}

// nvmlTelemetry reads an NVIDIA device through NVML.
type nvmlTelemetry struct{ d *nvml.Device }

func (t nvmlTelemetry) source() string { return "nvml" }
func (t nvmlTelemetry) read() (thermal.Reading, bool) {
	s, err := t.d.Sample()
	return thermal.Reading{TemperatureC: s.TemperatureC, PowerW: s.PowerW, Throttle: s.ThrottleNames}, err == nil
}

// hwmonTelemetry reads a device's hwmon sensors (amdgpu and others); it
// has no throttle reasons, so the thermal rule relies on the throughput.
type hwmonTelemetry struct{ s *pci.Sensors }

func (t hwmonTelemetry) source() string { return "hwmon" }
func (t hwmonTelemetry) read() (thermal.Reading, bool) {
	s, err := t.s.Sample()
	return thermal.Reading{TemperatureC: s.TemperatureC, PowerW: s.PowerW}, err == nil
}

func (soakProbe) Name() string    { return "webgpu-soak" }
func (soakProbe) Version() string { return "1" }

func (p soakProbe) Run(ctx context.Context, d *gpu.Device, v *schema.CapabilityVector) error {
	var (
		mu       sync.Mutex
		readings []thermal.Reading
	)
	start := time.Now()
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		p.sample(start, stop, func(r thermal.Reading) { mu.Lock(); readings = append(readings, r); mu.Unlock() })
	}()
	onPoint := func(at time.Duration, _ float64) {
		p.step(p.Name(), at.Seconds(), p.duration.Seconds())
	}
	res, err := gpu.Soak(ctx, d, gpu.SoakOptions{Duration: p.duration, OnPoint: onPoint})
	close(stop)
	<-done
	if err != nil {
		return err
	}
	return p.record(res, readings, v)
}

// record puts a finished soak's thermal envelope, judged from its points
// and the telemetry read beside it, into v.
func (p soakProbe) record(res gpu.SoakResult, readings []thermal.Reading, v *schema.CapabilityVector) error {
	points := make([]thermal.Point, len(res.Points))
	for i, pt := range res.Points {
		points[i] = thermal.Point{At: pt.At, OpsPerS: pt.OpsPerS}
	}
	e, err := thermal.Compute(res.Duration, points, readings)
	if errors.Is(err, thermal.ErrTooShort) {
		// Every piece was checked, but too few ran to judge an envelope
		// (a short --soak on a loaded host): the card says so instead of
		// signing one, and the rest of the appraisal stands.
		v.NotMeasured = append(v.NotMeasured, schema.Omission{Field: "thermal",
			Reason: fmt.Sprintf("the %.1f s soak ran %d pieces of work, too few for the thermal rules; a longer --soak gives more", res.Duration.Seconds(), len(points))})
		return nil
	}
	if err != nil {
		return err
	}
	source := "none"
	if p.telemetry != nil {
		source = p.telemetry.source()
	}
	v.Thermal = envelope(e, len(points), res.Kernel, p.Name(), source)
	v.Thermal.Timeline = timeline(thermal.Timeline(res.Duration, points, readings))
	if !e.Throttled {
		v.NotMeasured = append(v.NotMeasured, schema.Omission{Field: "thermal.time_to_throttle_s",
			Reason: fmt.Sprintf("did not throttle during the %.0f s soak", e.Soak.Seconds())})
	}
	return nil
}

// sample reads the driver's telemetry every telemetryGap until stop.
func (p soakProbe) sample(start time.Time, stop <-chan struct{}, keep func(thermal.Reading)) {
	if p.telemetry == nil {
		return
	}
	t := time.NewTicker(telemetryGap)
	defer t.Stop()
	for {
		if r, ok := p.telemetry.read(); ok {
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

package appraisal

import (
	"context"
	"time"

	"github.com/everycycle/appraise/internal/platform/nvml"
	"github.com/everycycle/appraise/internal/platform/thermal"
	"github.com/everycycle/appraise/internal/probe/webgpu"
	"github.com/everycycle/appraise/schema"
)

// What soak_gemm.go and peers.go (files of other changes of issue 19)
// still call, in the form they call it, on top of the WebGPU probes'
// package and internal/platform/thermal. Each name below goes once its
// callers use the new ones: thermal.Telemetry (Read, Source, PowerLimitW),
// thermal.Sampled, thermal.Card, driverTelemetry, webgpu.SoakProbe,
// webgpu.HostLinkProbe and webgpu.Transfer.Schema.

// telemetry is thermal.Telemetry as soak_gemm.go (and its test's fake)
// spell it.
type telemetry interface {
	read() (r thermal.Reading, ok bool)
	source() string
	powerLimit() (float64, error)
}

// spelled is a thermal.Telemetry as a telemetry.
type spelled struct{ t thermal.Telemetry }

func (s spelled) read() (thermal.Reading, bool) { return s.t.Read() }
func (s spelled) source() string                { return s.t.Source() }
func (s spelled) powerLimit() (float64, error)  { return s.t.PowerLimitW() }

// respelled is a telemetry as a thermal.Telemetry.
type respelled struct{ t telemetry }

func (r respelled) Read() (thermal.Reading, bool) { return r.t.read() }
func (r respelled) Source() string                { return r.t.source() }
func (r respelled) PowerLimitW() (float64, error) { return r.t.powerLimit() }

// asThermal is tel as a thermal.Telemetry, nil for nil.
func asThermal(tel telemetry) thermal.Telemetry {
	switch t := tel.(type) {
	case nil:
		return nil
	case spelled:
		return t.t
	}
	return respelled{tel}
}

// telemetryFor is driverTelemetry as a telemetry.
func telemetryFor(lib *nvml.Lib, c Candidate, sysfsRoot string) telemetry {
	t := driverTelemetry(lib, c, sysfsRoot)
	if t == nil {
		return nil
	}
	return spelled{t}
}

// soakRun is thermal.Soak as soak_gemm.go spells it.
type soakRun struct {
	duration time.Duration
	points   []thermal.Point
	workload string
	probe    string
	check    *schema.Check
}

// sampled is thermal.Sampled around a hold that returns its soak.
func sampled(tel telemetry, hold func() (soakRun, error)) (soakRun, []thermal.Reading, error) {
	var run soakRun
	readings, err := thermal.Sampled(asThermal(tel), func() error {
		var err error
		run, err = hold()
		return err
	})
	return run, readings, err
}

// recordSoak puts the envelope thermal.Card makes of run into v.
func recordSoak(run soakRun, readings []thermal.Reading, tel telemetry, v *schema.CapabilityVector) error {
	t, absent, err := thermal.Card(thermal.Soak{Duration: run.duration, Points: run.points, Workload: run.workload, Probe: run.probe, Check: run.check},
		readings, asThermal(tel))
	if err != nil {
		return err
	}
	if t != nil {
		v.Thermal = t
	}
	v.NotMeasured = append(v.NotMeasured, absent...)
	return nil
}

// soakProbe is webgpu.SoakProbe writing into a vector.
type soakProbe struct {
	duration  time.Duration
	telemetry telemetry
	step      func(stage string, done, total float64)
}

func (soakProbe) Name() string    { return webgpu.SoakProbe{}.Name() }
func (soakProbe) Version() string { return webgpu.SoakProbe{}.Version() }

func (p soakProbe) Run(ctx context.Context, d *webgpu.Device, v *schema.CapabilityVector) error {
	c, err := webgpu.SoakProbe{Duration: p.duration, Telemetry: asThermal(p.telemetry), Steps: p.step}.Run(ctx, d)
	if err != nil {
		return err
	}
	return add(v, c)
}

// hostLinkProbe is webgpu.HostLinkProbe.
type hostLinkProbe = webgpu.HostLinkProbe

// hostTransfer is t as the card records it (webgpu.Transfer.Schema).
func hostTransfer(t webgpu.Transfer, probe string) *schema.Transfer { return t.Schema(probe) }

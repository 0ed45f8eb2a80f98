package gpu

import (
	"context"
	"time"

	"github.com/everycycle/appraise/internal/platform/thermal"
	"github.com/everycycle/appraise/internal/probe"
)

// SoakProbe holds the device under the fp32 FMA load (Soak) beside the
// driver's telemetry and records the thermal envelope.
type SoakProbe struct {
	Duration  time.Duration     // positive
	Telemetry thermal.Telemetry // nil when the driver offers none
	// Steps, when not nil, is told the probe's name, seconds loaded and
	// seconds to load.
	Steps func(stage string, done, total float64)
}

// Name is the probe's name on the card.
func (SoakProbe) Name() string { return "webgpu-soak" }

// Version changes when what the probe measures, or how, changes.
func (SoakProbe) Version() string { return "2" }

// Run holds the load for p.Duration. A soak too short to judge leaves
// the envelope absent with the reason.
func (p SoakProbe) Run(ctx context.Context, d *Device) (*probe.Contribution, error) {
	var onPoint func(at time.Duration, _ float64)
	if p.Steps != nil {
		onPoint = func(at time.Duration, _ float64) { p.Steps(p.Name(), at.Seconds(), p.Duration.Seconds()) }
	}
	var res SoakResult
	readings, err := thermal.Sampled(p.Telemetry, func() error {
		var err error
		res, err = Soak(ctx, d, SoakOptions{Duration: p.Duration, OnPoint: onPoint})
		return err
	})
	if err != nil {
		return nil, err
	}
	points := make([]thermal.Point, len(res.Points))
	for i, pt := range res.Points {
		points[i] = thermal.Point{At: pt.At, OpsPerS: pt.OpsPerS}
	}
	chk := res.check()
	t, absent, err := thermal.Card(thermal.Soak{Duration: res.Duration, Points: points, Workload: res.Kernel, Probe: p.Name(), Check: &chk}, readings, p.Telemetry)
	if err != nil {
		return nil, err
	}
	return &probe.Contribution{Thermal: t, NotMeasured: absent}, nil
}

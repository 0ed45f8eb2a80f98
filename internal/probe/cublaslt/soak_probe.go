package cublaslt

import (
	"context"
	"errors"
	"time"

	"github.com/everycycle/appraise/internal/platform/thermal"
	"github.com/everycycle/appraise/internal/probe"
	"github.com/everycycle/appraise/schema"
)

// SoakProbe holds the library's GEMM on the device at a PCI bus address
// and records the thermal envelope, by the same rules as the FMA soak.
type SoakProbe struct {
	Duration  time.Duration
	Load      LoadOptions
	Size      int               // m = n = k; 0: DefaultSize
	Telemetry thermal.Telemetry // nil for none
	// Steps, when set, is told the seconds held of Duration.
	Steps func(stage string, done, total float64)
}

var _ probe.Probe[string] = SoakProbe{}

func (SoakProbe) Name() string    { return ProbeName + "-soak" }
func (SoakProbe) Version() string { return ProbeVersion }

// Run holds the GEMM on the device at busID. A contribution of skips alone
// means it could not (no precision offered, no driver or device there).
func (p SoakProbe) Run(ctx context.Context, busID string) (*probe.Contribution, error) {
	lib, err := Open(p.Load)
	if err != nil {
		return nil, err
	}
	defer lib.Close()
	var refused []string
	var soak thermal.Soak
	readings, err := thermal.Sampled(p.Telemetry, func() error {
		res, err := lib.Soak(ctx, busID, SoakOptions{M: p.Size, N: p.Size, K: p.Size, Duration: p.Duration,
			OnPoint: func(at time.Duration, _ float64) { p.step(at, p.Duration) }})
		refused = res.Refused
		if err != nil {
			return err
		}
		points := make([]thermal.Point, len(res.Points))
		for i, pt := range res.Points {
			points[i] = thermal.Point{At: pt.At, OpsPerS: pt.OpsPerS}
		}
		chk := res.Check.Schema()
		soak = thermal.Soak{Duration: res.Duration, Points: points, Workload: res.Workload(), Probe: ProbeName, Check: &chk}
		return nil
	})
	c := &probe.Contribution{}
	switch {
	case errors.Is(err, ErrNoSoakLoad):
		for _, r := range refused {
			c.Skipped = append(c.Skipped, schema.Skip{Probe: ProbeName, Item: "soak", Reason: clip(r)})
		}
		return c, nil
	case errors.Is(err, ErrNoDevice), errors.Is(err, ErrNoDriver):
		c.Skipped = append(c.Skipped, schema.Skip{Probe: ProbeName, Item: "soak", Reason: clip(err.Error())})
		return c, nil
	case err != nil:
		return nil, err
	}
	if c.Thermal, c.NotMeasured, err = thermal.Card(soak, readings, p.Telemetry); err != nil {
		return nil, err
	}
	c.Probes = []schema.ProbeRecord{{Name: p.Name(), Version: p.Version()}}
	return c, nil
}

func (p SoakProbe) step(at, of time.Duration) {
	if p.Steps != nil {
		p.Steps(p.Name(), at.Seconds(), of.Seconds())
	}
}

package cublaslt

import (
	"cmp"
	"context"
	"errors"
	"fmt"

	"github.com/everycycle/appraise/internal/measure/roofline"
	"github.com/everycycle/appraise/internal/probe"
	"github.com/everycycle/appraise/schema"
)

// GEMMProbe runs Library.Run and then Library.Roofline of each precision
// measured on the device at a PCI bus address.
type GEMMProbe struct {
	Load    LoadOptions
	Options Options
}

var _ probe.Probe[string] = GEMMProbe{}

// Name is ProbeName.
func (GEMMProbe) Name() string { return ProbeName }

// Version is ProbeVersion.
func (GEMMProbe) Version() string { return ProbeVersion }

// Item is the skip item of the probe as a whole.
const Item = "gemm"

// Run measures on the device at busID; anything absent is a skip, a failed
// check or other failure of a loaded library an error.
func (p GEMMProbe) Run(ctx context.Context, busID string) (*probe.Contribution, error) {
	lib, err := Open(p.Load)
	if errors.Is(err, ErrNoLibrary) || errors.Is(err, ErrNoDriver) {
		return &probe.Contribution{Skipped: []schema.Skip{Skip(err.Error())}}, nil
	}
	if err != nil {
		return nil, err
	}
	defer lib.Close()
	rep, err := lib.Run(ctx, busID, p.Options)
	if errors.Is(err, ErrNoDevice) {
		return &probe.Contribution{Skipped: []schema.Skip{Skip(err.Error())}}, nil
	}
	if err != nil {
		return nil, err
	}
	c := rep.Contribution()
	var measured []string
	for _, e := range rep.Measured() {
		measured = append(measured, e.Precision.Name)
	}
	if len(measured) == 0 {
		return c, nil
	}
	o := p.Options
	if k := cmp.Or(o.K, DefaultSize); k < 32<<(roofline.MinPoints-1) {
		c.Skipped = append(c.Skipped, schema.Skip{Probe: ProbeName, Item: "roofline",
			Reason: fmt.Sprintf("K %d gives fewer than %d reduction lengths (32 doubling up to K) to sweep", k, roofline.MinPoints)})
		return c, nil
	}
	sweeps, err := lib.Roofline(ctx, busID, RooflineOptions{Precisions: measured, M: o.M, N: o.N, K: o.K, Seed: o.Seed, Progress: o.Progress})
	if err != nil {
		return nil, fmt.Errorf("roofline: %w", err)
	}
	if err := addSweeps(c, sweeps); err != nil {
		return nil, err
	}
	return c, nil
}

// addSweeps adds each measured sweep to c, and each other as a skip.
func addSweeps(c *probe.Contribution, sweeps []RooflineSweep) error {
	for _, s := range sweeps {
		if s.Status != StatusMeasured {
			c.Skipped = append(c.Skipped, schema.Skip{Probe: ProbeName, Item: "roofline " + s.Precision.Name, Reason: clip(s.Reason)})
			continue
		}
		r, err := s.Ratio()
		if err != nil {
			return fmt.Errorf("roofline %s: %w", s.Precision.Name, err)
		}
		c.Roofline = append(c.Roofline, r)
	}
	return nil
}

// Contribution is r as the card carries it.
func (r Report) Contribution() *probe.Contribution {
	c := &probe.Contribution{Libraries: []schema.Library{r.Library.Library()}}
	for _, e := range r.Measured() {
		c.Precisions = append(c.Precisions, e.Figure())
	}
	for _, s := range r.Skips() {
		s.Reason = clip(s.Reason)
		c.Skipped = append(c.Skipped, s)
	}
	if len(c.Precisions) > 0 {
		c.Probes = []schema.ProbeRecord{{Name: ProbeName, Version: ProbeVersion}}
	}
	return c
}

// Skip is a skip of the whole probe, saying why.
func Skip(reason string) schema.Skip {
	return schema.Skip{Probe: ProbeName, Item: Item, Reason: clip(reason)}
}

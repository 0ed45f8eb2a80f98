package gpu

import (
	"context"

	"github.com/everycycle/appraise/internal/probe"
	"github.com/everycycle/appraise/schema"
)

// RooflineProbe sweeps arithmetic intensity per row of RooflineKernels
// (MeasureRoofline) and records each sweep against its own roofline.
type RooflineProbe struct {
	MaxArrayBytes uint64 // as RooflineOptions.MaxArrayBytes
}

// Name is the probe's name on the card.
func (RooflineProbe) Name() string { return "webgpu-roofline" }

// Version changes when what the probe measures, or how, changes.
func (RooflineProbe) Version() string { return "5" }

// Run sweeps every precision.
func (p RooflineProbe) Run(ctx context.Context, d *Device) (*probe.Contribution, error) {
	return p.RunParts(ctx, d, nil)
}

// RunParts sweeps the precisions named (all when none are).
func (p RooflineProbe) RunParts(ctx context.Context, d *Device, precisions []string) (*probe.Contribution, error) {
	rs, err := MeasureRoofline(ctx, d, RooflineOptions{Precisions: precisions, MaxArrayBytes: p.MaxArrayBytes})
	if err != nil {
		return nil, err
	}
	return rooflineContribution(rs)
}

func rooflineContribution(rs []RooflineResult) (*probe.Contribution, error) {
	c := &probe.Contribution{}
	if len(rs) == 0 {
		c.NotMeasured = []schema.Omission{{Field: "roofline", Reason: "the roofline probe ran but its sweep returned no precision"}}
		return c, nil
	}
	for _, r := range rs {
		ratio, err := r.SchemaRatio()
		if err != nil {
			return nil, err
		}
		c.Roofline = append(c.Roofline, ratio)
	}
	return c, nil
}

// SchemaRatio is the sweep as the card records it, with its roofline
// model, ratios and check.
func (r RooflineResult) SchemaRatio() (schema.RooflineRatio, error) {
	a, err := r.Analyse()
	if err != nil {
		return schema.RooflineRatio{}, err
	}
	out := schema.RooflineRatio{
		Precision: r.Precision, Ratio: a.Ratio, RidgeRatio: a.RidgeRatio,
		PeakOpsPerS: a.Peak, BandwidthBytesPerS: a.Bandwidth,
		Probe: RooflineProbe{}.Name(), Timing: r.Timing,
		Check: schema.Check{Reference: "closed-form", Elements: r.Checked, ErrorKind: "exact", Passed: true},
	}
	for i, p := range r.Points {
		out.Points = append(out.Points, schema.RooflinePoint{
			IntensityOpsPerByte: p.Intensity, OpsPerS: p.OpsPerS, ModelOpsPerS: a.Model[i],
		})
	}
	return out, nil
}

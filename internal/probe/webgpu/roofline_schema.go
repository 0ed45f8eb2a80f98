package webgpu

import (
	"github.com/everycycle/appraise/schema"
)

// RooflineProbe is the probe name roofline sections carry.
const RooflineProbe = "roofline"

// SchemaRatio is the sweep as the capability vector carries it: the
// roofline model and ratios of internal/roofline (see its package doc for
// what they can and cannot detect), every point with its model value, and
// the exact closed-form check every point passed.
func (r RooflineResult) SchemaRatio() (schema.RooflineRatio, error) {
	a, err := r.Analyse()
	if err != nil {
		return schema.RooflineRatio{}, err
	}
	out := schema.RooflineRatio{
		Precision: r.Precision, Ratio: a.Ratio, RidgeRatio: a.RidgeRatio,
		PeakOpsPerS: a.Peak, BandwidthBytesPerS: a.Bandwidth,
		Probe: RooflineProbe, Timing: r.Timing,
		Check: schema.Check{Reference: "closed-form", Elements: r.Checked, ErrorKind: "exact", Passed: true},
	}
	for i, p := range r.Points {
		out.Points = append(out.Points, schema.RooflinePoint{
			IntensityOpsPerByte: p.Intensity, OpsPerS: p.OpsPerS, ModelOpsPerS: a.Model[i],
		})
	}
	return out, nil
}

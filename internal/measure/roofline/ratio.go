package roofline

import "github.com/everycycle/appraise/schema"

// Ratio is Analyse of pts as the card records it: precision, probe, timing, check.
func Ratio(precision, probe string, timing schema.TimingMethod, pts []Point, chk schema.Check) (schema.RooflineRatio, error) {
	a, err := Analyse(pts)
	if err != nil {
		return schema.RooflineRatio{}, err
	}
	out := schema.RooflineRatio{Precision: precision, Ratio: a.Ratio, RidgeRatio: a.RidgeRatio,
		PeakOpsPerS: a.Peak, BandwidthBytesPerS: a.Bandwidth, Probe: probe, Timing: timing, Check: chk}
	for i, p := range pts {
		out.Points = append(out.Points, schema.RooflinePoint{IntensityOpsPerByte: p.Intensity, OpsPerS: p.OpsPerS, ModelOpsPerS: a.Model[i]})
	}
	return out, nil
}

package roofline

import "github.com/everycycle/appraise/schema"

// Ratio holds a sweep's points against the roofline they draw themselves
// (Analyse) and names it for the card: the precision (the figure's
// name), the probe that ran it, how it was timed, and the check every
// point's output passed.
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

package coopmat

import (
	"context"
	"fmt"

	"github.com/everycycle/appraise/coopmat/vk"
	"github.com/everycycle/appraise/internal/measure/roofline"
	"github.com/everycycle/appraise/internal/probe"
	"github.com/everycycle/appraise/schema"
)

// coopMatRooflinePrefix starts a sweep's name on the card, e.g.
// "gemm.coopmat.fp16-fp32".
const coopMatRooflinePrefix = "gemm.coopmat."

// CoopMatProbe measures every cooperative-matrix GEMM shape the device
// offers (Run) and sweeps K for the fastest of each combination of types
// (Roofline). It implements probe.Probe[*vk.Device].
type CoopMatProbe struct {
	// Options steer the search and the measurement.
	Options Options
	// Software marks a software adapter, whose sweeps are skips.
	Software bool
}

// Name is ProbeCoopMatGEMM.
func (CoopMatProbe) Name() string { return vk.ProbeCoopMatGEMM }

// Version is ProbeVersion.
func (CoopMatProbe) Version() string { return vk.ProbeVersion }

// Run measures on d. A device without the extension or the features the
// kernels need gives one skip; a shape the kernels cannot run, a skip
// naming it. A failed check or kernel is an error.
func (p CoopMatProbe) Run(ctx context.Context, d *vk.Device) (*probe.Contribution, error) {
	res, skips, err := Run(ctx, d, p.Options)
	if vk.IsSkip(err) {
		return &probe.Contribution{Skipped: []schema.Skip{{Probe: vk.ProbeCoopMatGEMM, Item: "matrix engine",
			Reason: "matrix path unreachable: " + err.Error() + "; figures are vector-ALU only"}}}, nil
	}
	if err != nil {
		return nil, err
	}
	c := &probe.Contribution{}
	for _, r := range res {
		c.Precisions = append(c.Precisions, vk.Precision(r.Result, "gemm", "gemm=2mnk"))
		if len(c.Probes) == 0 {
			c.Probes = []schema.ProbeRecord{{Name: r.Probe, Version: vk.ProbeVersion}}
		}
	}
	for _, s := range skips {
		c.Skipped = append(c.Skipped, schema.Skip{Probe: s.Probe, Item: s.Shape.String(), Reason: s.Reason})
	}
	for _, r := range fastestPerTypes(res) {
		if p.Software {
			c.Skipped = append(c.Skipped, schema.Skip{Probe: vk.ProbeCoopMatGEMM, Item: "roofline " + coopMatTypes(r.Shape),
				Reason: "not swept on a software adapter: the sweep builds a kernel per K, and its compiler takes minutes for each"})
			continue
		}
		if err := p.sweep(ctx, d, r, c); err != nil {
			return nil, err
		}
	}
	return c, nil
}

// sweep adds r's K sweep to c, or a skip when it has too few points.
func (p CoopMatProbe) sweep(ctx context.Context, d *vk.Device, r Result, c *probe.Contribution) error {
	name := coopMatRooflinePrefix + coopMatTypes(r.Shape)
	pts, err := Roofline(ctx, d, r, p.Options)
	if err != nil {
		return fmt.Errorf("roofline %s: %w", name, err)
	}
	if len(pts) < roofline.MinPoints {
		c.Skipped = append(c.Skipped, schema.Skip{Probe: vk.ProbeCoopMatGEMM, Item: "roofline " + coopMatTypes(r.Shape),
			Reason: fmt.Sprintf("N %d with tile %s gives %d reduction lengths to sweep, fewer than %d", r.Problem.M, r.Tile, len(pts), roofline.MinPoints)})
		return nil
	}
	rp := make([]roofline.Point, len(pts))
	chk := vk.Check{}
	for i, pt := range pts {
		rp[i] = roofline.Point{Intensity: pt.Intensity(), OpsPerS: pt.OpsPerSecond.Median}
		chk.Elements += pt.Check.Elements
		chk.MaxError, chk.Tolerance, chk.Worst = max(chk.MaxError, pt.Check.MaxError), max(chk.Tolerance, pt.Check.Tolerance), max(chk.Worst, pt.Check.Worst)
	}
	a, err := roofline.Analyse(rp)
	if err != nil {
		return fmt.Errorf("roofline %s: %w", name, err)
	}
	out := schema.RooflineRatio{Precision: name, Ratio: a.Ratio, RidgeRatio: a.RidgeRatio,
		PeakOpsPerS: a.Peak, BandwidthBytesPerS: a.Bandwidth, Probe: vk.ProbeCoopMatGEMM, Timing: pts[0].Timing, Check: chk.Record()}
	for i, pt := range rp {
		out.Points = append(out.Points, schema.RooflinePoint{IntensityOpsPerByte: pt.Intensity, OpsPerS: pt.OpsPerS, ModelOpsPerS: a.Model[i]})
	}
	c.Roofline = append(c.Roofline, out)
	return nil
}

// fastestPerTypes keeps the fastest result of each combination of types.
func fastestPerTypes(res []Result) []Result {
	var out []Result
	at := map[string]int{}
	for _, r := range res {
		if !r.MatrixEngine {
			continue
		}
		key := coopMatTypes(r.Shape)
		i, ok := at[key]
		switch {
		case !ok:
			at[key] = len(out)
			out = append(out, r)
		case r.OpsPerSecond.Median > out[i].OpsPerSecond.Median:
			out[i] = r
		}
	}
	return out
}

// coopMatTypes names a shape's types: "fp16-fp32", "int8xuint8-int32".
func coopMatTypes(s vk.Shape) string {
	name := vk.TypeName(s.A)
	if s.B != s.A {
		name += "x" + vk.TypeName(s.B)
	}
	return name + "-" + vk.TypeName(s.Result)
}

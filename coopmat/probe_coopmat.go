package coopmat

import (
	"context"
	"fmt"

	"github.com/everycycle/appraise/coopmat/vk"
	"github.com/everycycle/appraise/internal/measure/roofline"
	"github.com/everycycle/appraise/internal/probe"
	"github.com/everycycle/appraise/schema"
)

// coopMatRooflinePrefix starts the name of a cooperative-matrix GEMM sweep
// in the card's roofline section, e.g. "gemm.coopmat.fp16-fp32".
const coopMatRooflinePrefix = "gemm.coopmat."

// CoopMatProbe measures every cooperative-matrix GEMM shape the device
// offers (Run: a short list of measured tile candidates, then the chosen tile at full size,
// each checked) and sweeps K for the fastest of each combination of types
// (Device.Roofline), the card's roofline entry for that GEMM. It
// implements probe.Probe[*Device].
type CoopMatProbe struct {
	// Options steer the search and the measurement.
	Options Options
	// Software says the device is a software adapter: the K sweep builds
	// a kernel per K, and a software adapter's compiler can take minutes
	// for each, past the fence wait (docs/performance.md), so each sweep
	// is a skip saying so.
	Software bool
}

// Name is ProbeCoopMatGEMM.
func (CoopMatProbe) Name() string { return vk.ProbeCoopMatGEMM }

// Version is ProbeVersion.
func (CoopMatProbe) Version() string { return vk.ProbeVersion }

// Run measures on d. Without VK_KHR_cooperative_matrix, or the features
// its kernels need, the contribution is one skip saying the matrix path is
// unreachable; a shape the kernels cannot run is a skip naming the shape.
// A failed check, or a kernel that failed to run, is an error.
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

// sweep sweeps K for r and adds the sweep to c's roofline section; a sweep
// with too few reduction lengths to draw a roofline is a skip saying so.
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

// fastestPerTypes keeps, for each combination of input, accumulator and
// result types, the matrix-engine result with the highest median rate, in
// first-seen order: the GEMMs the probe sweeps.
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

// coopMatTypes names a shape's types, e.g. "fp16-fp32" (inputs, then the
// result), "int8xuint8-int32" when the inputs differ.
func coopMatTypes(s vk.Shape) string {
	name := vk.TypeName(s.A)
	if s.B != s.A {
		name += "x" + vk.TypeName(s.B)
	}
	return name + "-" + vk.TypeName(s.Result)
}

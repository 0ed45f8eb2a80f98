package appraisal

import (
	"context"
	"fmt"

	"github.com/everycycle/appraise/internal/measure/roofline"
	"github.com/everycycle/appraise/internal/probe/vulkan"
	"github.com/everycycle/appraise/schema"
)

// coopMatRooflinePrefix starts the name of a cooperative-matrix GEMM sweep
// in the card's roofline section, e.g. "gemm.coopmat.fp16-fp32".
const coopMatRooflinePrefix = "gemm.coopmat."

// coopMatRoofline sweeps K for the fastest checked cooperative-matrix GEMM
// of each combination of types in res (the card's matrix figure for it)
// and adds each sweep to v's roofline section. A sweep with too few
// reduction lengths to draw a roofline is a skip saying so.
func coopMatRoofline(ctx context.Context, d *vulkan.Device, opts vulkan.Options, res []vulkan.Result, v *schema.CapabilityVector) error {
	for _, r := range fastestPerTypes(res) {
		name := coopMatRooflinePrefix + coopMatTypes(r.Shape)
		pts, err := d.Roofline(ctx, r, opts)
		if err != nil {
			return fmt.Errorf("%w: %s roofline %s: %w", ErrProbe, vulkan.ProbeCoopMatGEMM, name, err)
		}
		if len(pts) < roofline.MinPoints {
			v.Skipped = append(v.Skipped, schema.Skip{Probe: vulkan.ProbeCoopMatGEMM, Item: "roofline " + coopMatTypes(r.Shape),
				Reason: fmt.Sprintf("N %d with tile %s gives %d reduction lengths to sweep, fewer than %d", r.Problem.M, r.Tile, len(pts), roofline.MinPoints)})
			continue
		}
		rp := make([]roofline.Point, len(pts))
		chk := vulkan.Check{}
		for i, p := range pts {
			rp[i] = roofline.Point{Intensity: p.Intensity(), OpsPerS: p.OpsPerSecond.Median}
			chk.Elements += p.Check.Elements
			chk.MaxError, chk.Tolerance, chk.Worst = max(chk.MaxError, p.Check.MaxError), max(chk.Tolerance, p.Check.Tolerance), max(chk.Worst, p.Check.Worst)
		}
		sweep, err := matrixRoofline(name, vulkan.ProbeCoopMatGEMM, pts[0].Timing, rp, rawCheck(chk))
		if err != nil {
			return fmt.Errorf("%w: %s roofline %s: %w", ErrProbe, vulkan.ProbeCoopMatGEMM, name, err)
		}
		v.Roofline = append(v.Roofline, sweep)
	}
	return nil
}

// fastestPerTypes keeps, for each combination of input, accumulator and
// result types, the result with the highest median rate, in first-seen
// order.
func fastestPerTypes(res []vulkan.Result) []vulkan.Result {
	var out []vulkan.Result
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
func coopMatTypes(s vulkan.Shape) string {
	name := typeName(s.A)
	if s.B != s.A {
		name += "x" + typeName(s.B)
	}
	return name + "-" + typeName(s.Result)
}

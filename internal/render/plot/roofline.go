package plot

import (
	"fmt"
	"image/color"
	"math"
	"strings"

	gplot "gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/everycycle/appraise/schema"
)

// splitRooflines separates the vector sweeps from the "gemm." ones, which
// get their own panel.
func splitRooflines(rs []schema.RooflineRatio) (vector, matrix []schema.RooflineRatio) {
	for _, r := range rs {
		if strings.HasPrefix(r.Precision, "gemm.") {
			matrix = append(matrix, r)
		} else {
			vector = append(vector, r)
		}
	}
	return vector, matrix
}

// roofline draws every sweep of rs on one log10 plot: the points, the
// model with its ridge, and the signed figures of the same name, dashed.
func roofline(title, xLabel string, rs []schema.RooflineRatio, signed []schema.PrecisionThroughput) (*gplot.Plot, error) {
	p := newPlot(title, xLabel, "ops/s")
	xlo, xhi, ylo, yhi := rooflineRange(rs, signed)
	decadeAxis(&p.X, xlo, xhi)
	decadeAxis(&p.Y, ylo, yhi)
	for i, r := range rs {
		if err := addPrecision(p, i, r, signedFigures(signed, r.Precision)); err != nil {
			return nil, fmt.Errorf("plot: roofline %s: %w", r.Precision, err)
		}
	}
	return p, nil
}

// matrixRoofline draws the GEMM sweeps of rs on one log10 plot, one
// legend line each, in the empty top left corner.
func matrixRoofline(title, xLabel string, rs []schema.RooflineRatio) (*gplot.Plot, error) {
	p := newPlot(title, xLabel, "ops/s")
	xlo, xhi, ylo, yhi := rooflineRange(rs, nil)
	decadeAxis(&p.X, xlo, xhi)
	decadeAxis(&p.Y, ylo, yhi*10) // a decade above the highest roof for the legend
	p.Legend.Top, p.Legend.Left = true, true
	p.Legend.TextStyle.Font.Size = vg.Points(8)
	for i, r := range rs {
		col, glyph := series(i)
		measured, model, ridge, err := sweepLines(p, r, col, glyph)
		if err != nil {
			return nil, fmt.Errorf("plot: roofline %s: %w", r.Precision, err)
		}
		p.Add(model, ridge, measured)
		p.Legend.Add(fmt.Sprintf("%s: median ratio %.3f (ridge %.3f), peak %s, bandwidth %s",
			strings.TrimPrefix(r.Precision, "gemm."), r.Ratio, r.RidgeRatio, si(r.PeakOpsPerS, "ops/s"), si(r.BandwidthBytesPerS, "B/s")), measured, model)
	}
	return p, nil
}

// sweepLines returns a sweep's points, model and ridge, in colour col.
func sweepLines(p *gplot.Plot, r schema.RooflineRatio, col color.Color, glyph draw.GlyphDrawer) (*plotter.Scatter, *plotter.Line, *plotter.Scatter, error) {
	pts := make(plotter.XYs, len(r.Points))
	for j, pt := range r.Points {
		pts[j] = plotter.XY{X: lg(pt.IntensityOpsPerByte), Y: lg(pt.OpsPerS)}
	}
	measured, err := plotter.NewScatter(pts)
	if err != nil {
		return nil, nil, nil, err
	}
	measured.GlyphStyle = draw.GlyphStyle{Color: col, Radius: vg.Points(3), Shape: glyph}
	model, ridge, _, err := modelLines(p, r)
	if err != nil {
		return nil, nil, nil, err
	}
	model.LineStyle = draw.LineStyle{Color: col, Width: vg.Points(1.5)}
	ridge.GlyphStyle = draw.GlyphStyle{Color: col, Radius: vg.Points(5), Shape: draw.RingGlyph{}}
	return measured, model, ridge, nil
}

// rooflineRange returns the data the axes must hold.
func rooflineRange(rs []schema.RooflineRatio, signed []schema.PrecisionThroughput) (xlo, xhi, ylo, yhi float64) {
	xlo, xhi, ylo, yhi = math.Inf(1), math.Inf(-1), math.Inf(1), math.Inf(-1)
	for _, r := range rs {
		ridge := r.PeakOpsPerS / r.BandwidthBytesPerS
		xlo, xhi = math.Min(xlo, ridge), math.Max(xhi, ridge)
		yhi = math.Max(yhi, r.PeakOpsPerS)
		for _, pt := range r.Points {
			xlo, xhi = math.Min(xlo, pt.IntensityOpsPerByte), math.Max(xhi, pt.IntensityOpsPerByte)
			ylo, yhi = math.Min(ylo, pt.OpsPerS), math.Max(yhi, pt.OpsPerS)
		}
		for _, f := range signedFigures(signed, r.Precision) {
			yhi = math.Max(yhi, f.OpsPerS.Median)
		}
	}
	left := math.Pow(10, math.Floor(lg(xlo)))
	for _, r := range rs {
		ylo = math.Min(ylo, r.BandwidthBytesPerS*left)
	}
	return xlo, xhi, ylo, yhi * 1.2
}

// signedFigures returns the figures of ps whose "<operation>.<input_type>" is name.
func signedFigures(ps []schema.PrecisionThroughput, name string) []schema.PrecisionThroughput {
	var out []schema.PrecisionThroughput
	for _, p := range ps {
		if p.Operation+"."+p.InputType == name {
			out = append(out, p)
		}
	}
	return out
}

// addPrecision draws one precision in the i-th series style.
func addPrecision(p *gplot.Plot, i int, r schema.RooflineRatio, signed []schema.PrecisionThroughput) error {
	col, glyph := series(i)
	measured, model, ridge, err := sweepLines(p, r, col, glyph)
	if err != nil {
		return err
	}
	_, _, drop, err := modelLines(p, r)
	if err != nil {
		return err
	}
	drop.LineStyle = draw.LineStyle{Color: col, Width: vg.Points(0.5), Dashes: []vg.Length{vg.Points(1), vg.Points(2)}}
	p.Add(model, drop, ridge, measured)
	p.Legend.Add(fmt.Sprintf("%s measured: median ratio %.3f, at the ridge %.3f", r.Precision, r.Ratio, r.RidgeRatio), measured)
	p.Legend.Add(fmt.Sprintf("%s model: peak %s, bandwidth %s, ridge at %.3g ops/B",
		r.Precision, si(r.PeakOpsPerS, "ops/s"), si(r.BandwidthBytesPerS, "B/s"), r.PeakOpsPerS/r.BandwidthBytesPerS), model, ridge)
	for _, f := range signed {
		h := hline{y: lg(f.OpsPerS.Median), style: dashed(col)}
		p.Add(h)
		p.Legend.Add(fmt.Sprintf("%s signed figure (%s%s): %s", r.Precision, f.OpCounting, engine(f), si(f.OpsPerS.Median, "ops/s")), h)
	}
	return nil
}

// modelLines returns min(peak, bandwidth × I) across the x axis, the ridge
// and a drop line from it, in log10 coordinates.
func modelLines(p *gplot.Plot, r schema.RooflineRatio) (model *plotter.Line, ridge *plotter.Scatter, drop *plotter.Line, err error) {
	peak, bw := lg(r.PeakOpsPerS), lg(r.BandwidthBytesPerS)
	at := peak - bw
	roof := func(x float64) plotter.XY { return plotter.XY{X: x, Y: math.Min(peak, bw+x)} }
	xs := plotter.XYs{roof(p.X.Min), roof(math.Min(math.Max(at, p.X.Min), p.X.Max)), roof(p.X.Max)}
	if model, err = plotter.NewLine(xs); err != nil {
		return nil, nil, nil, err
	}
	if ridge, err = plotter.NewScatter(plotter.XYs{{X: at, Y: peak}}); err != nil {
		return nil, nil, nil, err
	}
	drop, err = plotter.NewLine(plotter.XYs{{X: at, Y: p.Y.Min}, {X: at, Y: peak}})
	return model, ridge, drop, err
}

// lg is the plot coordinate of a value on a log axis.
func lg(v float64) float64 { return math.Log10(v) }

func engine(f schema.PrecisionThroughput) string {
	if f.MatrixEngine {
		return ", matrix engine"
	}
	return ""
}

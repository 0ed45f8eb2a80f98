package plot

import (
	"fmt"
	"image/color"
	"math"

	gplot "gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/everycycle/appraise/schema"
)

// thermal draws the soak as stacked panels over time: throughput, then
// temperature and power where read, each marking the time to throttle.
func thermal(t *schema.ThermalEnvelope) ([]*gplot.Plot, error) {
	load, err := loadPanel(t)
	if err != nil {
		return nil, err
	}
	panels := []*gplot.Plot{load}
	temp := reading(t.Timeline, func(s schema.ThermalStep) *float64 { return s.TemperatureC })
	if len(temp) > 0 {
		p, err := readingPanel(t, "Board temperature", "°C", temp, t.PeakTemperatureC, "peak %.0f °C (signed)")
		if err != nil {
			return nil, err
		}
		panels = append(panels, p)
	}
	power := reading(t.Timeline, func(s schema.ThermalStep) *float64 { return s.PowerW })
	if len(power) > 0 {
		p, err := readingPanel(t, "Board power", "W", power, t.SustainedPowerW, "median %.0f W over the soak (signed)")
		if err != nil {
			return nil, err
		}
		p.Y.Min = 0
		if lim := t.PowerLimitW; lim != nil {
			h := hline{y: *lim, style: draw.LineStyle{Color: alarm, Width: vg.Points(1), Dashes: []vg.Length{vg.Points(6), vg.Points(3)}}}
			p.Add(h)
			label := fmt.Sprintf("power limit %.0f W (signed)", *lim)
			if f := t.PowerLimitFraction; f != nil {
				label = fmt.Sprintf("power limit %.0f W, the load drew %.2f of it (signed)", *lim, *f)
			}
			p.Legend.Add(label, h)
			p.Y.Max = math.Max(p.Y.Max, *lim*1.05)
		}
		panels = append(panels, p)
	}
	return panels, nil
}

// verdict says in the title whether and when the device throttled.
func verdict(t *schema.ThermalEnvelope) string {
	switch {
	case t.TimeToThrottleS != nil:
		return fmt.Sprintf("throttled after %.1f s", *t.TimeToThrottleS)
	case t.Throttled:
		return "throttled (time not recorded)"
	}
	return "did not throttle"
}

// loadPanel is throughput over time from zero, with the signed figures dashed.
func loadPanel(t *schema.ThermalEnvelope) (*gplot.Plot, error) {
	title := fmt.Sprintf("Thermal timeline: %s for %.0f s, %s (sustained ÷ cold %.3f)",
		t.Workload, t.SoakS, verdict(t), t.ThrottledFraction)
	p := timePanel(t, title, "ops/s")
	p.Y.Tick.Marker = siTicks{}
	xys := make(plotter.XYs, len(t.Timeline))
	for i, s := range t.Timeline {
		xys[i] = plotter.XY{X: s.AtS, Y: s.OpsPerS}
	}
	if err := addSeries(p, xys, fmt.Sprintf("%s, median per step", t.Workload), 0); err != nil {
		return nil, err
	}
	cold := hline{y: t.ColdOpsPerS, style: dashed(grey)}
	sustained := hline{y: t.SustainedOpsPerS, style: dashed(color.Black)}
	sustained.style.Dashes = []vg.Length{vg.Points(2), vg.Points(2)}
	p.Add(cold, sustained)
	p.Legend.Add("cold "+si(t.ColdOpsPerS, "ops/s")+" (signed)", cold)
	p.Legend.Add("sustained "+si(t.SustainedOpsPerS, "ops/s")+" (signed)", sustained)
	if t.TimeToThrottleS != nil {
		p.Legend.Add(fmt.Sprintf("throttled at %.1f s (signed)", *t.TimeToThrottleS), throttleLine(*t.TimeToThrottleS))
	}
	p.Y.Min = 0
	p.Legend.Left = true
	return p, nil
}

// readingPanel is one reading over time, with its signed figure dashed.
func readingPanel(t *schema.ThermalEnvelope, what, unit string, xys plotter.XYs, signed *float64, label string) (*gplot.Plot, error) {
	p := timePanel(t, fmt.Sprintf("%s (telemetry: %s)", what, t.Telemetry), unit)
	if err := addSeries(p, xys, what+", median per step", 1); err != nil {
		return nil, err
	}
	if signed != nil {
		h := hline{y: *signed, style: dashed(grey)}
		p.Add(h)
		p.Legend.Add(fmt.Sprintf(label, *signed), h)
	}
	lo, hi := p.Y.Min, p.Y.Max
	pad := math.Max((hi-lo)*0.1, 1)
	p.Y.Min, p.Y.Max = lo-pad, hi+pad
	return p, nil
}

// timePanel is a panel over the soak's seconds with the throttle marked.
func timePanel(t *schema.ThermalEnvelope, title, unit string) *gplot.Plot {
	p := newPlot(title, "seconds since the load began", unit)
	p.X.Min, p.X.Max = 0, t.SoakS
	if t.TimeToThrottleS != nil {
		p.Add(throttleLine(*t.TimeToThrottleS))
	}
	return p
}

func throttleLine(at float64) vline {
	return vline{x: at, style: draw.LineStyle{Color: alarm, Width: vg.Points(1.5)}}
}

// addSeries draws xys as a line with points in the i-th series style.
func addSeries(p *gplot.Plot, xys plotter.XYs, label string, i int) error {
	line, points, err := plotter.NewLinePoints(xys)
	if err != nil {
		return err
	}
	col, glyph := series(i)
	line.LineStyle = draw.LineStyle{Color: col, Width: vg.Points(1.2)}
	points.GlyphStyle = draw.GlyphStyle{Color: col, Radius: vg.Points(1.5), Shape: glyph}
	p.Add(line, points)
	p.Legend.Add(label, line, points)
	return nil
}

// reading is the steps that have the reading get returns, as (seconds, value).
func reading(steps []schema.ThermalStep, get func(schema.ThermalStep) *float64) plotter.XYs {
	var xys plotter.XYs
	for _, s := range steps {
		if v := get(s); v != nil {
			xys = append(xys, plotter.XY{X: s.AtS, Y: *v})
		}
	}
	return xys
}

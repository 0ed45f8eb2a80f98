// Package plot draws a verified card's rooflines and thermal timeline as
// one SVG document whose text is glyph outlines, so it looks the same
// without the font. Start with Card.
package plot

import (
	"bytes"
	"errors"
	"fmt"

	gplot "gonum.org/v1/plot"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/everycycle/appraise/schema"
)

// ErrNothingToPlot is returned for a card with no roofline and no timeline.
var ErrNothingToPlot = errors.New("card has no roofline or thermal timeline to plot")

// Page geometry.
const (
	width          = 8 * vg.Inch
	headingHeight  = 0.6 * vg.Inch
	rooflineHeight = 4.6 * vg.Inch
	timelineHeight = 2.4 * vg.Inch
	margin         = 0.15 * vg.Inch
	gap            = 0.2 * vg.Inch // between the roofline and the timeline
)

// Card returns the SVG document of p's roofline above its thermal
// timeline, each where p has one. p must be valid, as schema.ReadCard
// returns it.
func Card(p *schema.CardPayload) ([]byte, error) {
	if err := schema.Validate(p); err != nil {
		return nil, fmt.Errorf("plot: %w", err)
	}
	c := &p.Capability
	var (
		roofs    []*gplot.Plot
		timeline []*gplot.Plot
		err      error
	)
	vector, matrix := splitRooflines(c.Roofline)
	for _, part := range []struct {
		title  string
		sweeps []schema.RooflineRatio
		xLabel string
		matrix bool
	}{
		{"Roofline: achieved ops/s against min(peak, bandwidth × intensity)", vector, "arithmetic intensity (ops per byte of device memory)", false},
		{"Matrix roofline: GEMMs with K swept, against min(peak, bandwidth × intensity)", matrix, "arithmetic intensity (ops per byte: A and B read, D written once)", true},
	} {
		if len(part.sweeps) == 0 {
			continue
		}
		var roof *gplot.Plot
		if part.matrix {
			roof, err = matrixRoofline(part.title, part.xLabel, part.sweeps)
		} else {
			roof, err = roofline(part.title, part.xLabel, part.sweeps, c.Precisions)
		}
		if err != nil {
			return nil, err
		}
		roofs = append(roofs, roof)
	}
	if c.Thermal != nil && len(c.Thermal.Timeline) > 0 {
		if timeline, err = thermal(c.Thermal); err != nil {
			return nil, fmt.Errorf("plot: thermal: %w", err)
		}
	}
	if roofs == nil && timeline == nil {
		return nil, ErrNothingToPlot
	}
	hash, err := schema.Hash(p)
	if err != nil {
		return nil, fmt.Errorf("plot: %w", err)
	}
	return render(heading(p, hash), roofs, timeline)
}

// heading returns two lines: the device, then where the figures came from.
func heading(p *schema.CardPayload, hash string) [2]string {
	id, env := p.Capability.Identity, p.Capability.Environment
	bus := id.BusAddress
	if bus == "" {
		bus = "no bus address"
	}
	name := id.Name
	if name == "" {
		name = "unnamed device"
	}
	return [2]string{
		fmt.Sprintf("%s · %s · probed %s", name, bus, p.ProbedAt),
		fmt.Sprintf("signed card payload sha256 %s… · driver %s · %s · appraise %s (%s)",
			hash[:16], env.DriverVersion, env.Backend, env.ProbeSuiteVersion, env.Mode),
	}
}

// render lays the heading and the panels out top to bottom on one page.
func render(head [2]string, roofs []*gplot.Plot, timeline []*gplot.Plot) ([]byte, error) {
	height := headingHeight + 2*margin + vg.Length(len(timeline))*timelineHeight + vg.Length(len(roofs))*(rooflineHeight+gap)
	if len(timeline) == 0 && len(roofs) > 0 {
		height -= gap
	}
	svg := newOutlineCanvas(width, height)
	dc := draw.New(svg)
	dc.SetColor(paper)
	dc.Fill(dc.Rectangle.Path())
	dc = draw.Crop(dc, margin, -margin, margin, -margin)
	drawHeading(dc, head)
	top := dc.Max.Y - headingHeight
	for _, roof := range roofs {
		roof.Draw(band(dc, top-rooflineHeight, top))
		top -= rooflineHeight + gap
	}
	if len(timeline) > 0 {
		rows := make([][]*gplot.Plot, len(timeline))
		for i, p := range timeline {
			rows[i] = []*gplot.Plot{p}
		}
		tiles := draw.Tiles{Rows: len(timeline), Cols: 1, PadY: vg.Points(6)}
		for i, c := range gplot.Align(rows, tiles, band(dc, dc.Min.Y, top)) {
			timeline[i].Draw(c[0])
		}
	}
	var buf bytes.Buffer
	if _, err := svg.WriteTo(&buf); err != nil {
		return nil, fmt.Errorf("plot: write svg: %w", err)
	}
	return buf.Bytes(), nil
}

// band is the part of c between heights y0 and y1.
func band(c draw.Canvas, y0, y1 vg.Length) draw.Canvas {
	c.Min.Y, c.Max.Y = y0, y1
	return c
}

// drawHeading writes the heading, shrinking a line that would not fit.
func drawHeading(c draw.Canvas, head [2]string) {
	const bigSize, smallSize = 14, 9
	big := fitted(textStyle(bigSize, true), head[0], c.Max.X-c.Min.X)
	small := fitted(textStyle(smallSize, false), head[1], c.Max.X-c.Min.X)
	small.Color = grey
	y := c.Max.Y - bigSize
	c.FillText(big, vg.Point{X: c.Min.X, Y: y}, head[0])
	c.FillText(small, vg.Point{X: c.Min.X, Y: y - bigSize - vg.Points(2)}, head[1])
}

// fitted returns sty, smaller where needed so that s is at most w wide.
func fitted(sty text.Style, s string, w vg.Length) text.Style {
	if got := sty.Width(s); got > w {
		sty.Font.Size *= w / got
	}
	return sty
}

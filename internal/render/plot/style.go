package plot

import (
	"image/color"
	"math"
	"strconv"

	xfont "golang.org/x/image/font"
	gplot "gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

var (
	paper = color.White
	grey  = color.Gray{Y: 0x60}
	alarm = color.RGBA{R: 0xcc, G: 0x22, B: 0x22, A: 0xff}
)

// palette is Okabe and Ito's colour-blind-safe set without the vermillion.
var palette = []color.Color{
	color.RGBA{R: 0x00, G: 0x72, B: 0xb2, A: 0xff},
	color.RGBA{R: 0x00, G: 0x9e, B: 0x73, A: 0xff},
	color.RGBA{R: 0xe6, G: 0x9f, B: 0x00, A: 0xff},
	color.RGBA{R: 0xcc, G: 0x79, B: 0xa7, A: 0xff},
	color.RGBA{R: 0x56, G: 0xb4, B: 0xe9, A: 0xff},
	color.Black,
}

// glyphs tell series apart where colours do not (print, colour blindness).
var glyphs = []draw.GlyphDrawer{
	draw.CircleGlyph{}, draw.SquareGlyph{}, draw.TriangleGlyph{}, draw.PyramidGlyph{}, draw.CrossGlyph{}, draw.PlusGlyph{},
}

// series returns the colour and glyph of the i-th series.
func series(i int) (color.Color, draw.GlyphDrawer) {
	return palette[i%len(palette)], glyphs[i%len(glyphs)]
}

// sans is the face every text on the page uses.
func sans(size vg.Length, bold bool) font.Font {
	f := font.Font{Typeface: "Liberation", Variant: "Sans", Size: size}
	if bold {
		f.Weight = xfont.WeightBold
	}
	return f
}

func textStyle(size vg.Length, bold bool) text.Style {
	return text.Style{Color: color.Black, Font: sans(size, bold), Handler: gplot.DefaultTextHandler}
}

// newPlot is a plot with the page's faces and the given title and labels.
func newPlot(title, x, y string) *gplot.Plot {
	p := gplot.New()
	p.Title.Text = title
	p.Title.TextStyle.Font = sans(11, true)
	p.Title.Padding = vg.Points(6)
	p.X.Label.Text, p.Y.Label.Text = x, y
	for _, a := range []*gplot.Axis{&p.X, &p.Y} {
		a.Label.TextStyle.Font = sans(10, false)
		a.Tick.Label.Font = sans(9, false)
	}
	p.Legend.TextStyle.Font = sans(9, false)
	p.Legend.ThumbnailWidth = vg.Points(24)
	return p
}

// decadeAxis sets a, which holds log10 of the values, to the whole
// decades covering the values [lo, hi], labelled with SI prefixes.
func decadeAxis(a *gplot.Axis, lo, hi float64) {
	a.Tick.Marker = decadeTicks{}
	a.Min, a.Max = math.Floor(math.Log10(lo)), math.Ceil(math.Log10(hi))
	if a.Max <= a.Min {
		a.Max = a.Min + 1
	}
}

// decadeTicks labels each decade of a log10 axis and marks 2…9 times it.
type decadeTicks struct{}

func (decadeTicks) Ticks(lo, hi float64) []gplot.Tick {
	var ticks []gplot.Tick
	for d := math.Floor(lo); d <= hi; d++ {
		ticks = append(ticks, gplot.Tick{Value: d, Label: siNumber(math.Pow(10, d))})
		for i := 2; i < 10 && d+math.Log10(float64(i)) <= hi; i++ {
			ticks = append(ticks, gplot.Tick{Value: d + math.Log10(float64(i))})
		}
	}
	return ticks
}

// siTicks are the default linear ticks labelled with SI prefixes.
type siTicks struct{}

func (siTicks) Ticks(lo, hi float64) []gplot.Tick {
	ticks := gplot.DefaultTicks{}.Ticks(lo, hi)
	for i := range ticks {
		if ticks[i].Label != "" {
			ticks[i].Label = siNumber(ticks[i].Value)
		}
	}
	return ticks
}

var prefixes = []string{"", "k", "M", "G", "T", "P", "E"}

// siNumber writes v to three significant digits with an SI prefix from
// k upwards: 0.25, 640, 1.5k, 64.7T.
func siNumber(v float64) string {
	i := 0
	for math.Abs(v) >= 1000 && i < len(prefixes)-1 {
		v /= 1000
		i++
	}
	return strconv.FormatFloat(v, 'g', 3, 64) + prefixes[i]
}

// si writes v with a unit: "64.7 Tops/s", "4.8 TB/s".
func si(v float64, unit string) string {
	n := siNumber(v)
	end := len(n)
	for end > 0 && (n[end-1] < '0' || n[end-1] > '9') {
		end--
	}
	if suffix := n[end:] + unit; suffix != "" {
		return n[:end] + " " + suffix
	}
	return n
}

// hline is a horizontal line across the data area at y, such as a signed peak.
type hline struct {
	y     float64
	style draw.LineStyle
}

func (h hline) Plot(c draw.Canvas, p *gplot.Plot) {
	_, ty := p.Transforms(&c)
	y := ty(h.y)
	c.StrokeLine2(h.style, c.Min.X, y, c.Max.X, y)
}

func (h hline) DataRange() (xmin, xmax, ymin, ymax float64) {
	return math.Inf(1), math.Inf(-1), h.y, h.y
}

func (h hline) Thumbnail(c *draw.Canvas) {
	y := c.Center().Y
	c.StrokeLine2(h.style, c.Min.X, y, c.Max.X, y)
}

// vline is a vertical line across the data area at x, such as the time to throttle.
type vline struct {
	x     float64
	style draw.LineStyle
}

func (v vline) Plot(c draw.Canvas, p *gplot.Plot) {
	tx, _ := p.Transforms(&c)
	x := tx(v.x)
	c.StrokeLine2(v.style, x, c.Min.Y, x, c.Max.Y)
}

func (v vline) DataRange() (xmin, xmax, ymin, ymax float64) {
	return v.x, v.x, math.Inf(1), math.Inf(-1)
}

func (v vline) Thumbnail(c *draw.Canvas) {
	x := c.Center().X
	c.StrokeLine2(v.style, x, c.Min.Y, x, c.Max.Y)
}

// dashed is a thin dashed line style in colour c.
func dashed(c color.Color) draw.LineStyle {
	return draw.LineStyle{Color: c, Width: vg.Points(1), Dashes: []vg.Length{vg.Points(5), vg.Points(3)}}
}

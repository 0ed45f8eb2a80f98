package plot

import (
	"bytes"
	"fmt"
	"html"
	"image/color"
	"io"
	"regexp"
	"strconv"
	"strings"

	"golang.org/x/image/font/sfnt"
	"golang.org/x/image/math/fixed"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/vgsvg"
)

// outlineCanvas is an SVG canvas that draws text as the outlines of the
// glyphs it was laid out with, each defined once and placed with <use>,
// and keeps the words in an aria-label. Text goes through vgsvg as
// numbered placeholders that WriteTo replaces.
type outlineCanvas struct {
	*vgsvg.Canvas
	colors []color.Color // the fill colour, one per Push level
	texts  []string      // the markup of each placeholder, by number
	glyphs map[glyphKey]string
	defs   bytes.Buffer
	err    error
}

// glyphKey names one glyph of one font.
type glyphKey struct {
	font  *sfnt.Font
	index sfnt.GlyphIndex
}

func newOutlineCanvas(w, h vg.Length) *outlineCanvas {
	return &outlineCanvas{
		Canvas: vgsvg.New(w, h),
		colors: []color.Color{color.Black},
		glyphs: map[glyphKey]string{},
	}
}

// SetColor, Push and Pop follow vgsvg's fill colour, which text takes.
func (c *outlineCanvas) SetColor(col color.Color) {
	c.colors[len(c.colors)-1] = col
	c.Canvas.SetColor(col)
}

func (c *outlineCanvas) Push() {
	c.colors = append(c.colors, c.colors[len(c.colors)-1])
	c.Canvas.Push()
}

func (c *outlineCanvas) Pop() {
	if len(c.colors) > 1 {
		c.colors = c.colors[:len(c.colors)-1]
	}
	c.Canvas.Pop()
}

// FillString draws s with its baseline starting at pt, as outlines.
func (c *outlineCanvas) FillString(f font.Face, pt vg.Point, s string) {
	markup, err := c.outline(f, pt, s)
	if err != nil {
		if c.err == nil {
			c.err = fmt.Errorf("plot: text %q: %w", s, err)
		}
		return
	}
	c.Canvas.FillString(f, pt, placeholder(len(c.texts)))
	c.texts = append(c.texts, markup)
}

func placeholder(n int) string { return "appraise-outlined-text-" + strconv.Itoa(n) }

var placeholderRe = regexp.MustCompile(`<text[^>]*>appraise-outlined-text-([0-9]+)</text>`)

// outline returns s as glyph uses, advanced and kerned as font.Face.Width measures.
func (c *outlineCanvas) outline(f font.Face, pt vg.Point, s string) (string, error) {
	upem := f.Face.UnitsPerEm()
	ppem := fixed.Int26_6(upem) // 26.6 values at this size are font units
	scale := f.Font.Size.Points() / float64(upem)
	var (
		buf    sfnt.Buffer
		b      strings.Builder
		x      fixed.Int26_6
		prev   sfnt.GlyphIndex
		placed bool
	)
	col := c.colors[len(c.colors)-1]
	if col == nil {
		col = color.Black // as vgsvg takes no colour
	}
	n := color.NRGBAModel.Convert(col).(color.NRGBA)
	fill := fmt.Sprintf("fill:#%02x%02x%02x", n.R, n.G, n.B)
	if n.A != 0xff {
		fill += ";fill-opacity:" + num(float64(n.A)/0xff)
	}
	fmt.Fprintf(&b, `<g transform="translate(%s,%s) scale(%s,%s)" style="%s" aria-label="%s">`,
		num(pt.X.Points()), num(pt.Y.Points()), num(scale), num(-scale), fill, html.EscapeString(s))
	for _, ch := range s {
		idx, err := f.Face.GlyphIndex(&buf, ch)
		if err != nil {
			return "", err
		}
		if placed {
			if k, err := f.Face.Kern(&buf, prev, idx, ppem, 0); err == nil {
				x += k
			}
		}
		id, err := c.glyph(&buf, f.Face, idx, ppem)
		if err != nil {
			return "", err
		}
		if id != "" {
			fmt.Fprintf(&b, `<use xlink:href="#%s" x="%d"/>`, id, x)
		}
		adv, err := f.Face.GlyphAdvance(&buf, idx, ppem, 0)
		if err != nil {
			return "", err
		}
		x += adv
		prev, placed = idx, true
	}
	b.WriteString("</g>")
	return b.String(), nil
}

// glyph returns the id of idx's outline, defining it on first use, or "" for none.
func (c *outlineCanvas) glyph(buf *sfnt.Buffer, f *sfnt.Font, idx sfnt.GlyphIndex, ppem fixed.Int26_6) (string, error) {
	key := glyphKey{f, idx}
	if id, ok := c.glyphs[key]; ok {
		return id, nil
	}
	segs, err := f.LoadGlyph(buf, idx, ppem, nil)
	if err != nil {
		return "", err
	}
	id := ""
	if len(segs) > 0 {
		id = "glyph" + strconv.Itoa(len(c.glyphs))
		fmt.Fprintf(&c.defs, "<path id=%q d=%q/>\n", id, pathData(segs))
	}
	c.glyphs[key] = id
	return id, nil
}

// pathData writes an outline as SVG path data in font units, y down.
func pathData(segs sfnt.Segments) string {
	var b strings.Builder
	for i, s := range segs {
		op, n := "", 0
		switch s.Op {
		case sfnt.SegmentOpMoveTo:
			if i > 0 {
				b.WriteString("Z")
			}
			op, n = "M", 1
		case sfnt.SegmentOpLineTo:
			op, n = "L", 1
		case sfnt.SegmentOpQuadTo:
			op, n = "Q", 2
		case sfnt.SegmentOpCubeTo:
			op, n = "C", 3
		}
		b.WriteString(op)
		for j, p := range s.Args[:n] {
			if j > 0 {
				b.WriteByte(' ')
			}
			fmt.Fprintf(&b, "%d %d", p.X, p.Y)
		}
	}
	b.WriteString("Z")
	return b.String()
}

// WriteTo writes the SVG document with the placeholders replaced by outlines.
func (c *outlineCanvas) WriteTo(w io.Writer) (int64, error) {
	if c.err != nil {
		return 0, c.err
	}
	var doc bytes.Buffer
	if _, err := c.Canvas.WriteTo(&doc); err != nil {
		return 0, err
	}
	out := placeholderRe.ReplaceAllFunc(doc.Bytes(), func(m []byte) []byte {
		n, _ := strconv.Atoi(string(placeholderRe.FindSubmatch(m)[1]))
		return []byte(c.texts[n])
	})
	end := bytes.LastIndex(out, []byte("</svg>"))
	if end < 0 {
		return 0, fmt.Errorf("plot: vgsvg wrote no </svg>")
	}
	var b bytes.Buffer
	b.Write(out[:end])
	b.WriteString("<defs>\n")
	b.Write(c.defs.Bytes())
	b.WriteString("</defs>\n")
	b.Write(out[end:])
	return b.WriteTo(w)
}

// num writes v compactly with enough digits for a page in points.
func num(v float64) string { return strconv.FormatFloat(v, 'g', 6, 64) }

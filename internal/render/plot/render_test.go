package plot

import (
	"bytes"
	"image"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"gonum.org/v1/plot/vg"

	"github.com/everycycle/appraise/schema"
)

// rsvgDPI is rsvg-convert's default resolution: pixels per inch.
const rsvgDPI = 96

// rasterize renders svg to an image with rsvg-convert (Debian's
// librsvg2-bin); fontconfig, when not "", replaces the machine's font
// configuration. It skips when the tool is absent, except under CI=true.
func rasterize(t *testing.T, svg []byte, fontconfig string) image.Image {
	t.Helper()
	tool, err := exec.LookPath("rsvg-convert")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("CI=true but no rsvg-convert: install librsvg2-bin (scripts/install-deps does)")
		}
		t.Skip("no rsvg-convert (Debian package librsvg2-bin)")
	}
	cmd := exec.Command(tool, "--format=png")
	cmd.Stdin = bytes.NewReader(svg)
	if fontconfig != "" {
		cmd.Env = append(os.Environ(), "FONTCONFIG_FILE="+fontconfig)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("rsvg-convert: %v\n%s", err, stderr.String())
	}
	img, err := png.Decode(bytes.NewReader(out))
	if err != nil {
		t.Fatal(err)
	}
	return img
}

// inked reports whether the pixel at x, y is drawn on (not near white).
func inked(img image.Image, x, y int) bool {
	r, g, b, a := img.At(x, y).RGBA()
	return a > 0x8000 && min(r, g, b) < 0xc000
}

// px converts a length on the page to rsvg-convert's pixels.
func px(l vg.Length) int { return int(float64(l/vg.Inch) * rsvgDPI) }

// TestTextFitsWithoutFonts renders plots the way a viewer without
// Liberation Sans (or with no fonts at all) sees them and checks that the
// picture does not depend on the fonts installed, that nothing is drawn
// in the page's margin (a title or legend running off the page would
// be), and that the heading's ink ends where its layout said it would.
func TestTextFitsWithoutFonts(t *testing.T) {
	noFonts := filepath.Join(t.TempDir(), "fonts.conf")
	if err := os.WriteFile(noFonts, []byte("<?xml version=\"1.0\"?>\n<fontconfig></fontconfig>\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	long := testCard(t, true, true, 30)
	long.Capability.Identity.Name = "A device whose driver reports a name far longer than a page is wide: " + strings.Repeat("very ", 12) + "long"
	for _, c := range []struct {
		name string
		card func() ([]byte, [2]string)
	}{
		{"H200", func() ([]byte, [2]string) { return cardSVG(t, testCard(t, true, true, 30)) }},
		{"long name", func() ([]byte, [2]string) { return cardSVG(t, long) }},
	} {
		t.Run(c.name, func(t *testing.T) {
			svg, head := c.card()
			img := rasterize(t, svg, "")
			if bare := rasterize(t, svg, noFonts); !samePixels(img, bare) {
				t.Error("the plot looks different with no fonts installed")
			}
			b := img.Bounds()
			if b.Dx() != px(width) {
				t.Fatalf("rendered %d px wide, want %d", b.Dx(), px(width))
			}
			m := px(margin) - 2
			for y := b.Min.Y; y < b.Max.Y; y++ {
				for x := b.Min.X; x < b.Max.X; x++ {
					if (x < m || x >= b.Max.X-m || y < m || y >= b.Max.Y-m) && inked(img, x, y) {
						t.Fatalf("ink at (%d, %d), in the page's margin of %d px", x, y, m)
					}
				}
			}
			checkHeadingInk(t, img, head)
		})
	}
}

// checkHeadingInk checks that the heading's ink ends within a few pixels
// of where its laid-out width (after any shrinking to fit) says.
func checkHeadingInk(t *testing.T, img image.Image, head [2]string) {
	t.Helper()
	text := width - 2*margin
	want := 0
	for i, sty := range []vg.Length{14, 9} {
		s := fitted(textStyle(sty, i == 0), head[i], text)
		want = max(want, px(margin+s.Width(head[i])))
	}
	right := -1
	for y := px(margin); y < px(margin+headingHeight); y++ {
		for x := img.Bounds().Max.X - 1; x > right; x-- {
			if inked(img, x, y) {
				right = x
			}
		}
	}
	if right < want-8 || right > want+1 {
		t.Errorf("heading ink ends at x=%d, its layout at %d", right, want)
	}
}

// cardSVG is p's plot and its heading.
func cardSVG(t *testing.T, p *schema.CardPayload) ([]byte, [2]string) {
	t.Helper()
	svg, err := Card(p)
	if err != nil {
		t.Fatal(err)
	}
	hash, err := schema.Hash(p)
	if err != nil {
		t.Fatal(err)
	}
	return svg, heading(p, hash)
}

func samePixels(a, b image.Image) bool {
	if a.Bounds() != b.Bounds() {
		return false
	}
	for y := a.Bounds().Min.Y; y < a.Bounds().Max.Y; y++ {
		for x := a.Bounds().Min.X; x < a.Bounds().Max.X; x++ {
			if a.At(x, y) != b.At(x, y) {
				return false
			}
		}
	}
	return true
}

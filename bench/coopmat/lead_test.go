//go:build explore

package coopmat_test

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/everycycle/appraise/coopmat"
	"github.com/everycycle/appraise/coopmat/vk"
	"github.com/everycycle/appraise/coopmat/vk/vktest"
)

var (
	flagLead     = flag.String("coopmat.lead", "", "regexp: for matching shapes, time -coopmat.leadtile and its -coopmat.leadvariants, checked, at -coopmat.size")
	flagLeadTile = flag.String("coopmat.leadtile", "wg2x4 t8x4 bk32 brow", "semicolon-separated base tiles of -coopmat.lead, as coopmat.CoopTile.String writes them")
	flagLeadVars = flag.String("coopmat.leadvariants", "ro,p2,ro+p2,s2,ro+s2", "comma-separated variants of each base tile, each a +-joined set of ro, p2, s2, early, bda, guard, full, top, vars, nounroll, unroll2, unroll4, pad, spv1.3, spv1.5")
)

// TestCoopLead times, for the shapes matching -coopmat.lead, each base
// tile of -coopmat.leadtile as named, each of its -coopmat.leadvariants and
// the base again last (to show the drift over the run), at -coopmat.size
// and each checked (coopmat.RunTile), as LEAD lines. A tile that cannot
// run is logged; a failed check fails the test. Without -coopmat.lead it
// skips.
func TestCoopLead(t *testing.T) {
	if *flagLead == "" {
		t.Skip("no -coopmat.lead")
	}
	var bases []coopmat.CoopTile
	for name := range strings.SplitSeq(*flagLeadTile, ";") {
		b, err := parseTile(strings.TrimSpace(name))
		if err != nil {
			t.Fatal(err)
		}
		bases = append(bases, b)
	}
	d := vktest.Device(t)
	shapes, err := d.Shapes()
	if err != nil {
		t.Skip(err)
	}
	o, match := options(t), regexp.MustCompile(*flagLead)
	o.Progress = nil
	for _, s := range shapes {
		if !match.MatchString(s.String()) {
			continue
		}
		for _, base := range bases {
			tiles, err := leadTiles(base, *flagLeadVars)
			if err != nil {
				t.Fatal(err)
			}
			for _, tile := range tiles {
				lead(t, d, s, tile, o)
			}
		}
	}
}

// lead times tile on shape s and logs it as a LEAD line, or why it cannot
// run; a failed check is an error of the test.
func lead(t *testing.T, d *vk.Device, s vk.Shape, tile coopmat.CoopTile, o coopmat.Options) {
	r, err := coopmat.RunTile(context.Background(), d, s, tile, o)
	switch {
	case errors.Is(err, vk.ErrCheckFailed):
		t.Errorf("LEAD %-34v %-28v %v", s, tile, err)
	case err != nil:
		t.Logf("LEAD %-34v %-28v cannot run: %v", s, tile, err)
	default:
		t.Logf("LEAD %-34v %-28v %8.1f T/s (min %.1f max %.1f, n=%d) check worst %.3g on %d at %s", s, tile,
			r.OpsPerSecond.Median/1e12, r.OpsPerSecond.Min/1e12, r.OpsPerSecond.Max/1e12, r.OpsPerSecond.Samples,
			r.Check.Worst, r.Check.Elements, time.Now().UTC().Format("15:04:05.000"))
	}
}

// leadTiles are base, each of variants applied to it, and base again.
func leadTiles(base coopmat.CoopTile, variants string) ([]coopmat.CoopTile, error) {
	out := []coopmat.CoopTile{base}
	for v := range strings.SplitSeq(variants, ",") {
		t := base
		for c := range strings.SplitSeq(v, "+") {
			if err := change(&t, c); err != nil {
				return nil, fmt.Errorf("lead variant %q: %w", v, err)
			}
		}
		out = append(out, t)
	}
	return append(out, base), nil
}

// parseTile parses a tile as coopmat.CoopTile.String writes it.
func parseTile(name string) (coopmat.CoopTile, error) {
	var t coopmat.CoopTile
	for w := range strings.FieldsSeq(name) {
		if err := change(&t, w); err != nil {
			return coopmat.CoopTile{}, fmt.Errorf("tile %q: %w", name, err)
		}
	}
	return t, nil
}

// flags are CoopTile's boolean options by the names String writes.
var flags = map[string]func(*coopmat.CoopTile) *bool{
	"brow":     func(t *coopmat.CoopTile) *bool { return &t.BRowMajor },
	"early":    func(t *coopmat.CoopTile) *bool { return &t.EarlyLoad },
	"ro":       func(t *coopmat.CoopTile) *bool { return &t.ReadOnly },
	"bda":      func(t *coopmat.CoopTile) *bool { return &t.Addressed },
	"guard":    func(t *coopmat.CoopTile) *bool { return &t.Guard },
	"full":     func(t *coopmat.CoopTile) *bool { return &t.FullSubgroups },
	"top":      func(t *coopmat.CoopTile) *bool { return &t.TopBarrier },
	"vars":     func(t *coopmat.CoopTile) *bool { return &t.Vars },
	"nounroll": func(t *coopmat.CoopTile) *bool { return &t.NoUnroll },
	"pad":      func(t *coopmat.CoopTile) *bool { return &t.Pad },
}

// numbered are the words of a tile's name that carry numbers, and what
// each sets.
var numbered = []struct {
	re  *regexp.Regexp
	set func(t *coopmat.CoopTile, a, b uint32)
}{
	{regexp.MustCompile(`^wg(\d+)x(\d+)$`), func(t *coopmat.CoopTile, a, b uint32) { t.WM, t.WN = a, b }},
	{regexp.MustCompile(`^t(\d+)x(\d+)$`), func(t *coopmat.CoopTile, a, b uint32) { t.TM, t.TN = a, b }},
	{regexp.MustCompile(`^bk(\d+)()$`), func(t *coopmat.CoopTile, a, _ uint32) { t.BK = a }},
	{regexp.MustCompile(`^unroll(\d+)()$`), func(t *coopmat.CoopTile, a, _ uint32) { t.Unroll = a }},
	{regexp.MustCompile(`^spv(\d+)\.(\d+)$`), func(t *coopmat.CoopTile, a, b uint32) { t.Version = a<<16 | b<<8 }},
}

// change applies one word of a tile's name to t: wgMxN, tMxN, bkN, s2 (two
// shared buffers), p2 (two-step prefetch), unrollN, spvM.N, or a flag.
func change(t *coopmat.CoopTile, w string) error {
	switch {
	case w == "s2":
		t.Stages, t.Prefetch = 2, 1
		return nil
	case w == "p2":
		t.Stages, t.Prefetch = 1, 2
		return nil
	case flags[w] != nil:
		*flags[w](t) = true
		return nil
	}
	for _, n := range numbered {
		if m := n.re.FindStringSubmatch(w); m != nil {
			a, _ := strconv.ParseUint(m[1], 10, 32)
			var b uint64
			if m[2] != "" {
				b, _ = strconv.ParseUint(m[2], 10, 32)
			}
			n.set(t, uint32(a), uint32(b))
			return nil
		}
	}
	return fmt.Errorf("unknown word %q", w)
}

// TestLeadTiles: a tile's name parses back to the tile, and the variants'
// names are the names String writes.
func TestLeadTiles(t *testing.T) {
	base, err := parseTile("wg2x4 t8x4 bk32 brow")
	if err != nil {
		t.Fatal(err)
	}
	got, err := leadTiles(base, "top+nounroll+pad,p2,unroll2+spv1.5,bda+guard+full+vars+ro+early,s2")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tile := range got {
		names = append(names, tile.String())
		if back, err := parseTile(tile.String()); err != nil || back != tile {
			t.Errorf("parseTile(%q) = %+v, %v; want %+v", tile.String(), back, err, tile)
		}
	}
	want := []string{"wg2x4 t8x4 bk32 brow", "wg2x4 t8x4 bk32 brow top nounroll pad", "wg2x4 t8x4 bk32 p2 brow",
		"wg2x4 t8x4 bk32 brow unroll2 spv1.5", "wg2x4 t8x4 bk32 brow early ro bda guard full vars", "wg2x4 t8x4 bk32 s2 brow",
		"wg2x4 t8x4 bk32 brow"}
	if strings.Join(names, "|") != strings.Join(want, "|") {
		t.Errorf("leadTiles = %q, want %q", names, want)
	}
	for _, bad := range []string{"top+fast", "wg2x4x8", "bk32k"} {
		if _, err := leadTiles(base, bad); err == nil {
			t.Errorf("variant %q was accepted", bad)
		}
	}
}

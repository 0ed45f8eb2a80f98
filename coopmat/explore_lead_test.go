//go:build explore

package coopmat

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/everycycle/appraise/coopmat/spirv"
	"github.com/everycycle/appraise/coopmat/vk"
	"github.com/everycycle/appraise/internal/vkprobe/vktest"
)

var (
	flagLead     = flag.String("coopmat.lead", "", "regexp: for matching shapes, time every default tile with read-only inputs, two-step prefetch and two buffers, checked, at -coopmat.size")
	flagLeadTile = flag.String("coopmat.leadtile", "", "regexp: with -coopmat.lead, only the default tiles whose name matches")
	flagLeadData = flag.String("coopmat.leaddata", "random", "operands of -coopmat.lead: random, or peer (vk_cooperative_matrix_perf's -1/2, 0, 1/2, 1)")
	flagLeadAll  = flag.Bool("coopmat.leadexplore", false, "with -coopmat.lead, take the tiles from the whole explored space instead of the default candidates")
	flagInspect  = flag.String("coopmat.inspect", "", "directory: with -coopmat.lead or -coopmat.peermodule, write what the driver compiled each kernel into (statistics, listings) there")
	flagLeadVars = flag.String("coopmat.leadvariants", "ro,p2,ro+p2,s2,ro+s2", "comma-separated variants of each tile for -coopmat.lead, each a +-joined set of ro, p2, s2, early, bda, guard, full, top, vars, nounroll, unroll2, unroll4, pad, spv1.3, spv1.5")
)

// TestCoopLead measures one lead left open by the fp16 time placement on
// the H200 (docs/performance.md, session 3): read-only A and B, which sped
// the staging alone up 1.4× but slowed the peer's 256×256 arrangement,
// tried in the other schedules. For each default candidate of a matching
// shape it times, at full size and each checked like any result, the tile
// as searched, read-only, with two-step prefetch, both, two shared buffers
// and two buffers read-only; the plain tile again last, to show the drift
// over the run. It changes no default: a tile only becomes a candidate
// through cmrun.go. With -coopmat.leaddata=peer the operands are the Vulkan
// peer's (-1/2, 0, 1/2 or 1), to compare with it on the same data. Without
// -coopmat.lead it skips.
func TestCoopLead(t *testing.T) {
	if *flagLead == "" {
		t.Skip("no -coopmat.lead")
	}
	d := vktest.Device(t)
	shapes, err := d.Shapes()
	if err != nil {
		t.Skip(err)
	}
	match, tiles := regexp.MustCompile(*flagLead), regexp.MustCompile(*flagLeadTile)
	o := Options{Options: vk.Options{Size: uint32(*flagSize), Seed: 7, Timing: vk.Timing{SampleTime: 20 * time.Millisecond}}}
	for _, s := range shapes {
		if !match.MatchString(s.String()) || supports(d, s) != nil {
			continue
		}
		cache := &operandCache{}
		if *flagLeadData == "peer" {
			cache = peerOperands(s.A, o.Size)
		}
		bases := coopCandidates(s, d.Info)
		if *flagLeadAll {
			bases = exploreCandidates(s, d.Info.SubgroupSize)
		}
		for _, base := range bases {
			if !tiles.MatchString(base.String()) {
				continue
			}
			variants, err := leadTiles(base, *flagLeadVars)
			if err != nil {
				t.Fatal(err)
			}
			for _, tile := range variants {
				leadRun(t, d, s, tile, o, cache)
			}
		}
	}
}

// leadTiles are the variants of base that TestCoopLead times, base first
// and last: variants is a comma-separated list, each a +-joined set of
// changes (ro: read-only inputs, p2: two-step prefetch, s2: two shared
// buffers, early: early loads, bda: device addresses, guard: guarded loads,
// full: full subgroups, top: barrier at the top of a step, vars:
// variables, nounroll: the main loop kept rolled, unroll2 and unroll4: a
// partial unroll count, pad: padded operands and no clamp, spv1.3 and
// spv1.5: that SPIR-V version).
func leadTiles(base CoopTile, variants string) ([]CoopTile, error) {
	out := []CoopTile{base}
	for _, v := range strings.Split(variants, ",") {
		t := base
		for _, c := range strings.Split(v, "+") {
			if err := leadChange(&t, c); err != nil {
				return nil, fmt.Errorf("-coopmat.leadvariants: %w in %q", err, v)
			}
		}
		out = append(out, t)
	}
	return append(out, base), nil
}

// TestLeadTiles: the lead's variant names are the names String writes.
func TestLeadTiles(t *testing.T) {
	base := CoopTile{WM: 2, WN: 4, TM: 8, TN: 4, BK: 32, BRowMajor: true}
	got, err := leadTiles(base, "top+nounroll+pad,p2,unroll2+spv1.5,bda+guard+full+vars+ro+early")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tile := range got {
		names = append(names, tile.String())
	}
	want := []string{"wg2x4 t8x4 bk32 brow", "wg2x4 t8x4 bk32 brow top nounroll pad", "wg2x4 t8x4 bk32 p2 brow",
		"wg2x4 t8x4 bk32 brow unroll2 spv1.5", "wg2x4 t8x4 bk32 brow early ro bda guard full vars", "wg2x4 t8x4 bk32 brow"}
	if strings.Join(names, "|") != strings.Join(want, "|") {
		t.Errorf("leadTiles = %q, want %q", names, want)
	}
	if _, err := leadTiles(base, "top+fast"); err == nil {
		t.Error("an unknown change was accepted")
	}
}

// leadChange applies one named change to t: a flag as CoopTile.String
// names it, or p2, s2, unroll2, unroll4, spv1.3 or spv1.5.
func leadChange(t *CoopTile, c string) error {
	switch c {
	case "p2":
		t.Stages, t.Prefetch = 1, 2
	case "s2":
		t.Stages, t.Prefetch = 2, 1
	case "unroll2", "unroll4":
		t.Unroll = uint32(c[6] - '0')
	case "spv1.3":
		t.Version = spirv.Version13
	case "spv1.5":
		t.Version = spirv.Version15
	default:
		for _, f := range tileFlags {
			if f.name == c {
				*f.of(t) = true
				return nil
			}
		}
		return fmt.Errorf("unknown change %q", c)
	}
	return nil
}

// leadRun times one tile of s at o.Size and logs it as a LEAD line (or why
// it cannot run); a failed check fails the test.
func leadRun(t *testing.T, d *vk.Device, s vk.Shape, tile CoopTile, o Options, cache *operandCache) {
	l := newLayout(tile, s, d.Info.SubgroupSize)
	n := vk.RoundDown(o.Size, max(l.bm, l.bn, tile.BK*tile.stages()))
	if err := l.check(n, n, n, d.Info); err != nil {
		t.Logf("LEAD %-34v %-28v cannot run: %v", s, tile, err)
		return
	}
	if *flagInspect != "" {
		o.inspect = func(x []vk.Executable, err error) { saveExecutables(t, tile.String(), x, err) }
	}
	r, err := runCoop(context.Background(), d, l, n, o, cache)
	if err != nil {
		t.Errorf("LEAD %-34v %-28v: %v", s, tile, err)
		return
	}
	t.Logf("LEAD %-34v %-28v %s %8.1f T/s (min %.1f max %.1f, n=%d) check worst %.3g on %d at %s", s, tile, *flagLeadData,
		r.OpsPerSecond.Median/1e12, r.OpsPerSecond.Min/1e12, r.OpsPerSecond.Max/1e12, r.OpsPerSecond.Samples,
		r.Check.Worst, r.Check.Elements, time.Now().UTC().Format("15:04:05.000"))
}

// writeExecutables saves what the driver compiled k into (see
// saveExecutables).
func writeExecutables(t *testing.T, name string, k *vk.Kernel) {
	x, err := k.D.Ext.Executables(k.D.Dev, k.Pipe)
	saveExecutables(t, name, x, err)
}

// saveExecutables logs each executable's statistics as INSPECT lines and
// writes its listings under -coopmat.inspect, one file per listing.
func saveExecutables(t *testing.T, name string, x []vk.Executable, err error) {
	if err != nil {
		t.Logf("INSPECT %s: %v", name, err)
		return
	}
	for i, e := range x {
		var stats []string
		for _, s := range e.Stats {
			stats = append(stats, s.Name+"="+s.Value)
		}
		t.Logf("INSPECT %s [%d %s] %s", name, i, e.Name, strings.Join(stats, " "))
		for lname, text := range e.Listings {
			file := filepath.Join(*flagInspect, strings.NewReplacer(" ", "_", "/", "_").Replace(fmt.Sprintf("%s.%d.%s.txt", name, i, lname)))
			if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
				t.Error(err)
			}
		}
	}
}

//go:build explore

package coopmat

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/everycycle/appraise/coopmat/spirv"
	"github.com/everycycle/appraise/coopmat/vk"
)

// LeadOptions steer ExploreLead: the sizes, seed and timing (Options), and
// which shapes, tiles and variants it times.
type LeadOptions struct {
	Options

	// Shape and Tile, when set, select the shapes and the base tiles by
	// name (vk.Shape.String, CoopTile.String); nil selects all.
	Shape, Tile func(name string) bool
	// Variants is a comma-separated list of the variants of each base tile,
	// each a +-joined set of changes (leadTiles).
	Variants string
	// PeerData draws the operands like the Vulkan peer (-1/2, 0, 1/2 or 1)
	// instead of uniformly at random.
	PeerData bool
	// Explored takes the base tiles from the whole explored space
	// (exploreCandidates) instead of the product's candidates.
	Explored bool
	// Inspect, when set, receives what the driver compiled each tile's
	// kernel into.
	Inspect func(tile string, x []vk.Executable, err error)
}

// data names the operands as the LEAD lines do.
func (o LeadOptions) data() string {
	if o.PeerData {
		return "peer"
	}
	return "random"
}

// ExploreLead times leads left open by the fp16 time placement
// (docs/history.md): for each base tile of each selected shape the device
// and our kernels run, at o.Size and each checked like any result, the
// tile as searched, each of o.Variants, and the plain tile again last, to
// show the drift over the run; each is logged as a LEAD line, or why it
// cannot run. It changes no default: a tile only becomes a candidate
// through cmrun.go. A malformed o.Variants is returned at once; kernels
// that fail (a failed check included) are joined into the returned error.
func ExploreLead(ctx context.Context, d *vk.Device, o LeadOptions, logf Logf) error {
	shapes, err := d.Shapes()
	if err != nil {
		return fmt.Errorf("coopmat: lead: %w", err)
	}
	var errs []error
	for _, s := range shapes {
		if (o.Shape != nil && !o.Shape(s.String())) || supports(d, s) != nil {
			continue
		}
		cache := &operandCache{}
		if o.PeerData {
			cache = peerOperands(s.A, cmp.Or(o.Size, 8192))
		}
		bases := coopCandidates(s, d.Info)
		if o.Explored {
			bases = exploreCandidates(s, d.Info.SubgroupSize)
		}
		for _, base := range bases {
			if o.Tile != nil && !o.Tile(base.String()) {
				continue
			}
			variants, err := leadTiles(base, o.Variants)
			if err != nil {
				return err
			}
			for _, tile := range variants {
				if err := ctx.Err(); err != nil {
					return errors.Join(append(errs, err)...)
				}
				if err := leadRun(ctx, d, s, tile, o, cache, logf); err != nil {
					errs = append(errs, err)
				}
			}
		}
	}
	return errors.Join(errs...)
}

// leadTiles are the variants of base that ExploreLead times, base first
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
				return nil, fmt.Errorf("coopmat: lead variants: %w in %q", err, v)
			}
		}
		out = append(out, t)
	}
	return append(out, base), nil
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

// leadRun times one tile of s at o.Size and logs it as a LEAD line, or
// why it cannot run; it returns the kernel's error (a failed check
// included).
func leadRun(ctx context.Context, d *vk.Device, s vk.Shape, tile CoopTile, o LeadOptions, cache *operandCache, logf Logf) error {
	l := newLayout(tile, s, d.Info.SubgroupSize)
	n := vk.RoundDown(cmp.Or(o.Size, 8192), max(l.bm, l.bn, tile.BK*tile.stages()))
	if err := l.check(n, n, n, d.Info); err != nil {
		logf("LEAD %-34v %-28v cannot run: %v", s, tile, err)
		return nil
	}
	opts := o.Options
	if o.Inspect != nil {
		opts.inspect = func(x []vk.Executable, err error) { o.Inspect(tile.String(), x, err) }
	}
	r, err := runCoop(ctx, d, l, n, opts, cache)
	if err != nil {
		return fmt.Errorf("lead: %w", err)
	}
	logf("LEAD %-34v %-28v %s %8.1f T/s (min %.1f max %.1f, n=%d) check worst %.3g on %d at %s", s, tile, o.data(),
		r.OpsPerSecond.Median/1e12, r.OpsPerSecond.Min/1e12, r.OpsPerSecond.Max/1e12, r.OpsPerSecond.Samples,
		r.Check.Worst, r.Check.Elements, time.Now().UTC().Format("15:04:05.000"))
	return nil
}

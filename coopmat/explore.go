//go:build explore

package coopmat

import (
	"cmp"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/everycycle/appraise/coopmat/vk"
)

// The exploration of the cooperative-matrix GEMM: the whole tile space the
// product's short list (coopCandidates, cmrun.go) was drawn from, kernel
// variants that place time inside the GEMM, leads (explore_lead.go) and the
// Vulkan peer's own kernel (explore_peer.go), all run on the product's
// layouts, emitter, operands and checks and logged, for research on a GPU
// host (bench/coopmat, bench/coopmat.sh, bench/vkpeer.sh). It exists only
// with the explore build tag: nothing here changes what the product
// measures, and a tile becomes a candidate only through cmrun.go.

// Logf logs one line of an exploration (testing.T.Logf fits).
type Logf func(format string, args ...any)

// ExploreShape is RunShape over the whole candidate space
// (exploreCandidates) instead of the product's short list: every tile
// that fits d is searched at o.SearchSize, with no trial budget and no
// schedule variants, then the winner is measured at o.Size and checked.
func ExploreShape(ctx context.Context, d *vk.Device, s vk.Shape, o Options) (Result, error) {
	o.coopTiles = func(s vk.Shape) []CoopTile { return exploreCandidates(s, d.Info.SubgroupSize) }
	return RunShape(ctx, d, s, o)
}

// exploreCandidates is the whole space the default list was drawn from:
// 4, 8 or 16 subgroups per workgroup, each computing 32×64 up to 128×64
// elements of C, K steps of 32, 64 or 128 bytes, one or two shared buffers,
// one- or two-step prefetch, and B column- or row-major.
func exploreCandidates(s vk.Shape, sub uint32) []CoopTile {
	var out []CoopTile
	for _, w := range [][4]uint32{
		{2, 2, 64, 64}, {2, 4, 64, 64}, {4, 2, 64, 64}, {2, 2, 128, 64},
		{2, 4, 128, 64}, {4, 2, 64, 128}, {4, 4, 64, 64}, {4, 4, 32, 64},
	} {
		for _, bytes := range []uint32{32, 64, 128} {
			for _, v := range [][2]uint32{{1, 1}, {2, 1}, {1, 2}} { // stages, prefetch
				for _, brow := range []bool{false, true} {
					t, ok := specTile(s, candidateSpec{w[0], w[1], w[2], w[3], bytes, v[1]}, v[0], brow)
					if ok {
						out = addFitted(out, t, s, sub)
					}
				}
			}
		}
	}
	return out
}

// diagKind is one diagnostic timing of a tile: a kernel variant, on the
// usual random operands or on the Vulkan peer's (peer).
type diagKind struct {
	name string
	v    cmVariant
	peer bool
}

var (
	kindFull     = diagKind{"full", variantFull, false}
	kindNoGlobal = diagKind{"noglobal", variantNoGlobal, false}
	kindNoMMA    = diagKind{"nomma", variantNoMMA, false}
	kindPeerData = diagKind{"peerdata", variantFull, true}
	kindNoSem    = diagKind{"nosem", variantNoSemantics, false}
)

// ExploreVariants times, for a few tiles of s at o.Size (diagTiles), the
// full kernel, the variants that leave out the global loads or the MulAdds
// (to place the time inside the GEMM; their output is wrong and not
// checked) and the full kernel on the peer's operands (checked like any
// run, never reported), each logged as a VARIANT line with the wall time,
// to be matched with a clock and power log. A tile that does not fit d is
// logged and passed over; the kernels that fail (a failed check included)
// are joined into the returned error.
func ExploreVariants(ctx context.Context, d *vk.Device, s vk.Shape, o Options, logf Logf) error {
	n := cmp.Or(o.Size, 8192)
	caches := map[bool]*operandCache{false: {}}
	var errs []error
	for _, dt := range diagTiles(s) {
		for _, k := range dt.kinds {
			if err := ctx.Err(); err != nil {
				return errors.Join(append(errs, err)...)
			}
			if caches[k.peer] == nil {
				caches[k.peer] = peerOperands(s.A, n)
			}
			l := newLayout(dt.tile, s, d.Info.SubgroupSize)
			l.variant = k.v
			if err := l.check(n, n, n, d.Info); err != nil {
				logf("VARIANT %v %v: %v", s, dt.tile, err)
				break
			}
			r, err := runCoop(ctx, d, l, n, o, caches[k.peer])
			if err != nil && !errors.Is(err, errUnchecked) {
				errs = append(errs, fmt.Errorf("variant %s: %w", k.name, err))
				continue
			}
			logf("VARIANT %-34v %-28v %-9s %8.1f T/s (min %.1f max %.1f) at %s", s, dt.tile, k.name,
				r.OpsPerSecond.Median/1e12, r.OpsPerSecond.Min/1e12, r.OpsPerSecond.Max/1e12, time.Now().UTC().Format("15:04:05.000"))
		}
	}
	return errors.Join(errs...)
}

// diagTile is a tile ExploreVariants looks into and the timings it takes.
type diagTile struct {
	tile  CoopTile
	kinds []diagKind
}

// diagTiles are the tiles ExploreVariants looks into. For fp16 results:
// the Vulkan peer's best arrangement (256×256 blocks of eight 128×64
// subgroups, B row-major) with every diagnostic, with early loads (with and
// without barrier semantics), with two-step prefetch, and with read-only
// inputs (alone and with two-step prefetch and early loads); 256×128 blocks of
// four such subgroups, two of which share a multiprocessor but stage half
// as much work per byte; 64×128 subgroups; and column-major B. For other
// results, the arrangement that won their search (128×256 blocks of 64×64
// subgroups for fp32 accumulators, 128×128 blocks with 128-byte K steps
// for 8-bit types) with and without its staging or MulAdds.
func diagTiles(s vk.Shape) []diagTile {
	bk := 64 / uint32(s.A.Bytes())
	with := func(t CoopTile, f func(*CoopTile)) CoopTile { f(&t); return t }
	full := []diagKind{kindFull}
	if s.Result != vk.Float16 {
		t := CoopTile{WM: 2, WN: 4, TM: 64 / s.M, TN: 64 / s.N, BK: bk, BRowMajor: s.B.Bytes() == 2}
		if s.A.Bytes() == 1 {
			t.WN, t.BK = 2, 128
		}
		return []diagTile{{t, []diagKind{kindFull, kindNoGlobal, kindNoMMA}}}
	}
	peer := CoopTile{WM: 2, WN: 4, TM: 128 / s.M, TN: 64 / s.N, BK: bk, BRowMajor: true}
	return []diagTile{
		{peer, []diagKind{kindFull, kindNoGlobal, kindNoMMA, kindPeerData, kindNoSem}},
		{with(peer, func(t *CoopTile) { t.EarlyLoad = true }), []diagKind{kindFull, kindNoSem}},
		{with(peer, func(t *CoopTile) { t.Prefetch = 2 }), full},
		{with(peer, func(t *CoopTile) { t.ReadOnly = true }), []diagKind{kindFull, kindNoMMA, kindNoSem}},
		{with(peer, func(t *CoopTile) { t.ReadOnly, t.Prefetch = true, 2 }), full},
		{with(peer, func(t *CoopTile) { t.ReadOnly, t.Prefetch, t.EarlyLoad = true, 2, true }), full},
		{with(peer, func(t *CoopTile) { t.WN = 2 }), []diagKind{kindFull, kindNoGlobal}},
		{with(peer, func(t *CoopTile) { t.WM, t.WN, t.TM, t.TN = 4, 2, 64/s.M, 128/s.N }), full},
		{with(peer, func(t *CoopTile) { t.BRowMajor = false }), full},
	}
}

// peerOperands is an operand cache holding n×n A and B operands of type t
// drawn like vk_cooperative_matrix_perf's: (rand()&3 - 1)/2, that is -1/2,
// 0, 1/2 or 1, values with no mantissa bits that a matrix engine multiplies
// at less power than uniform random ones, and so faster under a power cap
// (docs/history.md, cooperative-matrix GEMM).
func peerOperands(t vk.ComponentType, n uint32) *operandCache {
	c := &operandCache{typ: t, ops: map[[2]uint32]operand{}}
	if t != vk.Float16 && t != vk.BFloat16 {
		return c // only 16-bit floats: other types fall back to random operands
	}
	for role := range uint32(2) {
		rng := rand.New(rand.NewPCG(uint64(n), uint64(role)))
		op := operand{raw: make([]byte, 2*n*n), values: make([]float64, n*n)}
		for i := range op.values {
			x := float32(rng.IntN(4)-1) / 2
			h := vk.F16Bits(x)
			if t == vk.BFloat16 {
				h = vk.Bf16Bits(x)
			}
			binary.LittleEndian.PutUint16(op.raw[2*i:], h)
			op.values[i] = float64(x)
		}
		c.ops[[2]uint32{n, role}] = op
	}
	return c
}

package coopmat

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/everycycle/appraise/coopmat/vk"
)

// Run measures every cooperative-matrix shape the device reports (RunShape):
// results that passed their check, skips for shapes the kernels cannot
// run, and the failed kernels joined into the error. Without
// VK_KHR_cooperative_matrix the error wraps ErrExtensionMissing.
func Run(ctx context.Context, d *vk.Device, o Options) ([]Result, []vk.Skip, error) {
	shapes, err := d.Shapes()
	if err != nil {
		return nil, nil, err
	}
	if !d.Enabled.CoopMat {
		return nil, nil, fmt.Errorf("coopmat: cooperativeMatrix feature: %w", vk.ErrFeatureMissing)
	}
	var res []Result
	var skips []vk.Skip
	var errs []error
	cache := &operandCache{}
	for _, s := range shapes {
		if err := ctx.Err(); err != nil {
			return res, skips, err
		}
		r, err := runShape(ctx, d, s, o, cache)
		switch {
		case err == nil:
			res = append(res, r)
		case vk.IsSkip(err):
			skips = append(skips, vk.Skip{Probe: vk.ProbeCoopMatGEMM, Shape: s, Reason: err.Error()})
		default:
			errs = append(errs, err)
		}
	}
	return res, skips, errors.Join(errs...)
}

// RunShape measures one shape: a short measured search over tile
// candidates at SearchSize, then the chosen tile at Size.
func RunShape(ctx context.Context, d *vk.Device, s vk.Shape, o Options) (Result, error) {
	return runShape(ctx, d, s, o, &operandCache{})
}

// RunTile measures one shape with tile t, no search, at Size rounded down
// to the tile's block, checked; a tile that cannot run s on d is an error.
func RunTile(ctx context.Context, d *vk.Device, s vk.Shape, t CoopTile, o Options) (Result, error) {
	if err := supports(d, s); err != nil {
		return Result{}, fmt.Errorf("coopmat: %v: %w", s, err)
	}
	l := newLayout(t, s, d.Info.SubgroupSize)
	return runCoop(ctx, d, l, vk.RoundDown(cmp.Or(o.Size, 8192), max(l.bm, l.bn, t.BK*t.stages())), o, &operandCache{})
}

// supports says why d or our kernels cannot run s (nil if they can).
func supports(d *vk.Device, s vk.Shape) error {
	f := d.Enabled
	switch {
	case s.Scope != vk.ScopeSubgroup:
		return fmt.Errorf("scope %v: only subgroup-scope kernels are implemented: %w", s.Scope, vk.ErrFeatureMissing)
	case s.C != s.Result:
		return fmt.Errorf("C type %v differs from result type %v: not implemented: %w", s.C, s.Result, vk.ErrFeatureMissing)
	case s.A != s.B:
		return fmt.Errorf("mixed A/B types %v/%v: not implemented: %w", s.A, s.B, vk.ErrFeatureMissing)
	case !f.MemoryModel:
		return fmt.Errorf("vulkanMemoryModel (cooperative-matrix kernels use the Vulkan memory model): %w", vk.ErrFeatureMissing)
	case (s.A == vk.Float16 || s.Result == vk.Float16) && !f.Float16:
		return fmt.Errorf("shaderFloat16: %w", vk.ErrFeatureMissing)
	case s.Result == vk.Float16 && !f.Storage16:
		return fmt.Errorf("storageBuffer16BitAccess: %w", vk.ErrFeatureMissing)
	case (s.A == vk.Sint8 || s.A == vk.Uint8) && !f.Int8:
		return fmt.Errorf("shaderInt8: %w", vk.ErrFeatureMissing)
	case s.A == vk.BFloat16 && !(f.BFloat16Type && f.BFloat16CoopMat):
		return fmt.Errorf("%s shaderBFloat16CooperativeMatrix: %w", vk.ExtBFloat16, vk.ErrExtensionMissing)
	case s.A == vk.E4M3 || s.A == vk.E5M2:
		return fmt.Errorf("fp8 component %v: kernel not implemented yet: %w", s.A, vk.ErrFeatureMissing)
	}
	return nil
}

// A candidate's accumulators may take maxAccRegisters 32-bit registers per
// invocation and maxGroupAccRegisters per workgroup.
const (
	maxAccRegisters      = 128
	maxGroupAccRegisters = 128 * 256
)

// candidateSpec is an arrangement: wm×wn subgroups of rows×cols elements
// of C, K steps of bytes, prefetch steps ahead.
type candidateSpec struct{ wm, wn, rows, cols, bytes, prefetch uint32 }

// The arrangements a shape's search tries, by its class of types, never by
// the device: softwareSpec first, then the class's leads (leadSpecs), or
// smallSpec when no lead fits the device's limits.
var (
	softwareSpec = candidateSpec{2, 2, 16, 16, 32, 1}
	smallSpec    = candidateSpec{2, 2, 64, 64, 64, 1}
	leads8Bit    = []candidateSpec{{2, 2, 64, 64, 128, 1}}
	leads16Acc   = []candidateSpec{{2, 4, 128, 64, 64, 1}, {4, 2, 64, 128, 64, 1}}
	leads32Acc   = []candidateSpec{{2, 4, 64, 64, 64, 1}}
)

// leadSpecs are the lead arrangements of s's class of types.
func leadSpecs(s vk.Shape) []candidateSpec {
	switch {
	case s.A.Bytes() == 1:
		return leads8Bit
	case s.Result.Bytes() == 2:
		return leads16Acc
	}
	return leads32Acc
}

// coopCandidates are the tiles the search measures for s on info: the
// arrangements fitted to the register budgets, B row-major for 16-bit types
// and column-major for 8-bit ones, smallest code (mulAdds) first.
func coopCandidates(s vk.Shape, info vk.DeviceInfo) []CoopTile {
	leads := specTiles(s, info.SubgroupSize, leadSpecs(s))
	if !slices.ContainsFunc(leads, func(t CoopTile) bool { return fitsLimits(t, s, info) }) {
		leads = specTiles(s, info.SubgroupSize, []candidateSpec{smallSpec})
	}
	out := specTiles(s, info.SubgroupSize, []candidateSpec{softwareSpec})
	for _, t := range leads {
		if !slices.Contains(out, t) {
			out = append(out, t)
		}
	}
	slices.SortStableFunc(out, func(a, b CoopTile) int {
		return cmp.Compare(newLayout(a, s, info.SubgroupSize).mulAdds(), newLayout(b, s, info.SubgroupSize).mulAdds())
	})
	return out
}

func specTiles(s vk.Shape, sub uint32, specs []candidateSpec) []CoopTile {
	brow := s.B.Bytes() >= 2 && (s.N*uint32(s.B.Bytes()))%16 == 0
	var out []CoopTile
	for _, c := range specs {
		if t, ok := specTile(s, c, 1, brow); ok {
			out = addFitted(out, t, s, sub)
		}
	}
	return out
}

// fitsLimits reports whether t runs s within info's limits.
func fitsLimits(t CoopTile, s vk.Shape, info vk.DeviceInfo) bool {
	l := newLayout(t, s, info.SubgroupSize)
	n := 4 * max(l.bm, l.bn, t.BK)
	return l.check(n, n, n, info) == nil
}

// addFitted appends t fitted to the register budgets, unless it cannot
// fit or out has it.
func addFitted(out []CoopTile, t CoopTile, s vk.Shape, sub uint32) []CoopTile {
	t, ok := fitRegisters(t, s, sub)
	if !ok || slices.Contains(out, t) {
		return out
	}
	return append(out, t)
}

// fitRegisters halves the larger of TM and TN (TM on a tie) until the
// accumulators fit the register budgets; false when one fragment is too
// many.
func fitRegisters(t CoopTile, s vk.Shape, sub uint32) (CoopTile, bool) {
	for !withinRegisters(newLayout(t, s, sub)) {
		switch {
		case t.TM >= t.TN && t.TM > 1:
			t.TM /= 2
		case t.TN > 1:
			t.TN /= 2
		default:
			return t, false
		}
	}
	return t, true
}

// specTile resolves c against s (false when the shape does not tile it).
func specTile(s vk.Shape, c candidateSpec, stages uint32, brow bool) (CoopTile, bool) {
	tm, tn := c.rows/s.M, c.cols/s.N
	bk := max(c.bytes/uint32(max(s.A.Bytes(), 1)), s.K)
	if tm == 0 || tn == 0 {
		return CoopTile{}, false
	}
	return CoopTile{WM: c.wm, WN: c.wn, TM: tm, TN: tn, BK: bk, Stages: stages, Prefetch: c.prefetch, BRowMajor: brow}, true
}

// scheduleVariants are the loop schedules the search also measures on its
// winner (one buffer): TopBarrier, then NoUnroll, then Pad.
func scheduleVariants(t CoopTile) []CoopTile {
	if t.stages() > 1 {
		return nil
	}
	top, rolled := t, t
	top.TopBarrier = true
	rolled.TopBarrier, rolled.NoUnroll = true, true
	padded := rolled
	padded.Pad = true
	return []CoopTile{top, rolled, padded}
}

// withinRegisters applies the accumulator register budgets.
func withinRegisters(l cmLayout) bool {
	return l.accRegisters() <= maxAccRegisters && l.accRegisters()*l.threads <= maxGroupAccRegisters
}

func runShape(ctx context.Context, d *vk.Device, s vk.Shape, o Options, cache *operandCache) (Result, error) {
	if err := supports(d, s); err != nil {
		return Result{}, fmt.Errorf("coopmat: %v: %w", s, err)
	}
	size := cmp.Or(o.Size, 8192)
	search := min(size, cmp.Or(o.SearchSize, 4096))
	var best *CoopTile
	bestRate := 0.0
	var lastErr error
	cands := coopCandidates(s, d.Info)
	guard := newTrialGuard(time.Now)
	try := func(t CoopTile) error {
		l := newLayout(t, s, d.Info.SubgroupSize)
		n := vk.RoundDown(search, max(l.bm, l.bn, t.BK))
		if n == 0 || l.check(n, n, n, d.Info) != nil {
			return nil
		}
		cache.operands(o.Seed, l, n) // drawn before the trial's clock starts
		if why := guard.refuse(l.mulAdds()); why != "" {
			o.Progressf("coopmat: search %v %v n=%d: not tried: %s", s, t, n, why)
			return nil
		}
		r, err := runCoop(ctx, d, l, n, o.searchOptions(), cache)
		guard.done(l.mulAdds())
		if err != nil {
			o.Progressf("coopmat: search %v %v n=%d: %v", s, t, n, err)
			if errors.Is(err, vk.ErrCheckFailed) || ctx.Err() != nil {
				return err
			}
			lastErr = err // a tile the driver cannot build: try the next one
			return nil
		}
		o.Progressf("coopmat: search %v %v n=%d: %.4g ops/s (check worst %.3g)", s, t, n, r.OpsPerSecond.Median, r.Check.Worst)
		if r.OpsPerSecond.Median > bestRate {
			best, bestRate = &t, r.OpsPerSecond.Median
		}
		return nil
	}
	for _, t := range cands {
		if err := try(t); err != nil {
			return Result{}, err
		}
	}
	if best != nil {
		for _, t := range scheduleVariants(*best) {
			if err := try(t); err != nil {
				return Result{}, err
			}
		}
	}
	if best == nil && lastErr == nil {
		return Result{}, fmt.Errorf("coopmat: %v: no tile candidate fits the device's limits (%d candidates): %w", s, len(cands), vk.ErrFeatureMissing)
	}
	if best == nil {
		return Result{}, fmt.Errorf("coopmat: %v: no tile candidate ran: %v: %w", s, lastErr, vk.ErrFeatureMissing)
	}
	l := newLayout(*best, s, d.Info.SubgroupSize)
	return runCoop(ctx, d, l, vk.RoundDown(size, max(l.bm, l.bn, best.BK)), o, cache)
}

func runCoop(ctx context.Context, d *vk.Device, l cmLayout, n uint32, o Options, cache *operandCache) (Result, error) {
	s := l.s
	if err := l.check(n, n, n, d.Info); err != nil {
		return Result{}, fmt.Errorf("coopmat: %v: %w", s, err)
	}
	a, bt, bRaw := cache.operands(o.Seed, l, n)
	version := vk.SpirvVersion(d.Info.API)
	if l.t.Version != 0 {
		version = l.t.Version
	}
	words, err := buildCoopGEMM(version, l, n, n, n)
	if err != nil {
		return Result{}, fmt.Errorf("coopmat: %v: %w", s, err)
	}
	outBytes := uint64(n) * uint64(n) * uint64(s.Result.Bytes())
	groups := [3]uint32{n / l.bn, n / l.bm, 1}
	padA, padB := l.padBytes(n)
	setup := vk.KernelSetup{Addressed: l.t.Addressed, FullSubgroups: l.t.FullSubgroups, Pad: []uint64{padA, padB}}
	out, m, err := d.RunGEMM(ctx, words, a.raw, bRaw, setup, outBytes, groups, 2*float64(n)*float64(n)*float64(n), o.Timing)
	if err != nil {
		return Result{}, fmt.Errorf("coopmat: %v %v: %w", s, l.t, err)
	}
	if o.tamper != nil {
		o.tamper(vk.ProbeCoopMatGEMM, out)
	}
	g := gemmCheck{m: n, n: n, k: n, a: a.values, bt: bt.values, acc: s.C, out: s.Result, lines: o.lines(), seed: o.Seed}
	c, err := g.run(out)
	if err != nil {
		return Result{}, fmt.Errorf("coopmat: %v %v: %w", s, l.t, err)
	}
	return Result{Result: vk.Result{
		Probe: vk.ProbeCoopMatGEMM, Shape: s, BColumnMajor: !l.t.BRowMajor, MatrixEngine: true,
		Problem: vk.Problem{M: n, N: n, K: n}, OpsPerSecond: m.Rate, Timing: m.Method, Repeats: m.Repeats,
		Tile: l.t.String(), Check: c,
	}, tile: l.t}, nil
}

// operandCache keeps the operands of one component type for the shapes
// that share it.
type operandCache struct {
	typ  vk.ComponentType
	ops  map[[2]uint32]operand
	rows map[uint32][]byte // B transposed to row-major (K×N), by edge
}

// transposed is bt's bytes rearranged as K×N row-major.
func (c *operandCache) transposed(t vk.ComponentType, n uint32, bt operand) []byte {
	if c.rows == nil {
		c.rows = map[uint32][]byte{}
	}
	if r, ok := c.rows[n]; ok {
		return r
	}
	r := transposeRaw(bt.raw, int(n), int(n), t.Bytes())
	c.rows[n] = r
	return r
}

// transposeRaw transposes a rows×cols row-major matrix of size-byte elements.
func transposeRaw(raw []byte, rows, cols, size int) []byte {
	const blk = 64
	out := make([]byte, len(raw))
	for i0 := 0; i0 < rows; i0 += blk {
		for j0 := 0; j0 < cols; j0 += blk {
			for i := i0; i < min(i0+blk, rows); i++ {
				for j := j0; j < min(j0+blk, cols); j++ {
					src, dst := (i*cols+j)*size, (j*rows+i)*size
					for b := range size {
						out[dst+b] = raw[src+b]
					}
				}
			}
		}
	}
	return out
}

// operands returns A, B (N×K) and B's bytes in l's layout, drawn once.
func (c *operandCache) operands(seed uint64, l cmLayout, n uint32) (a, bt operand, bRaw []byte) {
	a = c.get(seed, l.s.A, n, 0)
	bt = c.get(seed, l.s.B, n, 1)
	bRaw = bt.raw
	if l.t.BRowMajor {
		bRaw = c.transposed(l.s.B, n, bt)
	}
	return a, bt, bRaw
}

func (c *operandCache) get(seed uint64, t vk.ComponentType, n uint32, role uint32) operand {
	if c.ops == nil || c.typ != t {
		c.typ, c.ops, c.rows = t, map[[2]uint32]operand{}, nil
	}
	key := [2]uint32{n, role}
	if op, ok := c.ops[key]; ok {
		return op
	}
	rng := rand.New(rand.NewPCG(seed, uint64(n)<<8|uint64(role)))
	op := randomOperand(rng, t, int(n)*int(n))
	c.ops[key] = op
	return op
}

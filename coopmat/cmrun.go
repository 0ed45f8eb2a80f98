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

// Run measures every cooperative-matrix shape the device reports. Shapes
// the kernels cannot run are listed in the skips with the reason. Results
// hold only kernels that ran and passed their check; kernels that failed
// are joined into the returned error (results are still returned). Without
// VK_KHR_cooperative_matrix, Run returns an error wrapping
// ErrExtensionMissing.
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

// RunTile measures one shape with tile t, without a search, at Size
// rounded down to a multiple of the tile's block; the result is checked
// like Run's. A tile that cannot run the shape on d is an error.
func RunTile(ctx context.Context, d *vk.Device, s vk.Shape, t CoopTile, o Options) (Result, error) {
	if err := supports(d, s); err != nil {
		return Result{}, fmt.Errorf("coopmat: %v: %w", s, err)
	}
	l := newLayout(t, s, d.Info.SubgroupSize)
	return runCoop(ctx, d, l, vk.RoundDown(cmp.Or(o.Size, 8192), max(l.bm, l.bn, t.BK*t.stages())), o, &operandCache{})
}

// supports says why the device or our kernels cannot run shape s (nil if
// they can).
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

// Register budgets of a candidate's accumulators, in 32-bit registers: per
// invocation, half of the 255 a GPU thread can address, and per workgroup,
// half of a 64K-register file; beyond them the other operands spill, and a
// kernel that spills runs several times slower (docs/performance.md).
const (
	maxAccRegisters      = 128
	maxGroupAccRegisters = 128 * 256
)

// candidateSpec is one workgroup arrangement of a candidate tile: WM×WN
// subgroups, each computing rows×cols elements of C, K steps of bytes, and
// prefetch steps of lookahead.
type candidateSpec struct{ wm, wn, rows, cols, bytes, prefetch uint32 }

// The product's rule for a shape's tile is a short list of arrangements
// chosen from the shape's types, never from the device's name; the
// measurement picks among them. Each is the arrangement that won for its
// class of types in searches over the whole space (exploreCandidates in
// explore.go, -tags explore; figures in docs/performance.md):
//
//   - 8-bit inputs: 128×128 blocks of four 64×64 subgroups, 128-byte K
//     steps;
//   - 16-bit results (fp16 accumulators): 256×256 blocks of eight 128×64
//     or eight 64×128 subgroups, 64-byte K steps;
//   - otherwise (fp32 accumulators): 128×256 blocks of eight 64×64
//     subgroups, 64-byte K steps.
//
// Before them comes softwareSpec, 16×16 subgroup tiles with 32-byte K
// steps: it loses on a GPU with wide subgroups, but is the one a device
// that lowers each MulAdd into many instructions (a software rasteriser
// such as lavapipe) builds in seconds, where the leads take minutes and
// run no faster (trialGuard stops there). When no lead fits the shared
// memory and invocations the device reports, smallSpec (128×128 blocks,
// 64-byte K steps, the least shared memory of the arrangements that came
// close) takes their place.
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

// coopCandidates are the tiles the product measures for s on a device
// that reports info: softwareSpec and the leads of s's types (smallSpec
// when none of them fits info's limits), with B row-major for 16-bit types
// and column-major for 8-bit ones: transposing 8-bit fragments has no fast
// path on common matrix engines (row-major 8-bit B ran several times slower
// where measured), while 16-bit B row-major ran as fast or faster
// (docs/performance.md). Each arrangement is fitted to the register
// budgets (fitRegisters), so a device with narrow subgroups gets the same
// arrangements with smaller subgroup tiles. They come in the order of
// their code size (mulAdds), smallest first, so that trialGuard can stop
// before a tile the device would take too long to build.
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

// specTiles resolves specs against s, fitted to the register budgets of
// subgroups of sub.
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

// fitsLimits reports whether t runs s within info's limits at an edge of
// a few blocks.
func fitsLimits(t CoopTile, s vk.Shape, info vk.DeviceInfo) bool {
	l := newLayout(t, s, info.SubgroupSize)
	n := 4 * max(l.bm, l.bn, t.BK)
	return l.check(n, n, n, info) == nil
}

// addFitted appends t fitted to the register budgets, unless it cannot be
// fitted or out has that tile already.
func addFitted(out []CoopTile, t CoopTile, s vk.Shape, sub uint32) []CoopTile {
	t, ok := fitRegisters(t, s, sub)
	if !ok || slices.Contains(out, t) {
		return out
	}
	return append(out, t)
}

// fitRegisters halves the larger of a tile's TM and TN (TM on a tie) until
// its accumulators fit the register budgets. Each invocation holds
// M·N/subgroup elements of every accumulator, so the same subgroup tile
// takes four times the registers with subgroups of 8 (lavapipe on 256-bit
// vectors) as with 32. It reports false when one fragment per subgroup is
// still too many.
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

// scheduleVariants are the other loop schedules the search tries on the
// tile that won among the candidates: the barrier that ends a step's reads
// of shared memory moved to the top of the next step; that with the main
// loop kept rolled (a loop-control hint); and that with the operands padded
// so that the prefetch past the last step needs no clamp. Which helps
// depends on the shape and the driver's compiler (a driver that unrolls
// the main loop into a large binary gains from the rolled one, while other
// types lose from it; docs/performance.md), so the search measures all
// three on the winner.
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
	// Then the loop schedules of the winning tile (see scheduleVariants).
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

// operandCache keeps the random operands of the current component type, so
// that consecutive shapes of one type share their inputs.
type operandCache struct {
	typ  vk.ComponentType
	ops  map[[2]uint32]operand
	rows map[uint32][]byte // B transposed to row-major (K×N), by edge
}

// transposed returns bt's raw bytes (n×n elements of t, N×K row-major)
// rearranged as K×N row-major, the row-major layout of B.
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

// transposeRaw transposes a rows×cols row-major matrix of size-byte
// elements, in blocks of 64×64 for locality.
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

// operands returns A, B (N×K, as the check reads it) and B's bytes in
// l's layout for an n×n×n GEMM of l's shape, drawing them once.
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

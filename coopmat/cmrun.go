package coopmat

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
)

// Run measures every cooperative-matrix shape the device reports. Shapes
// the kernels cannot run are listed in the skips with the reason. Results
// hold only kernels that ran and passed their check; kernels that failed
// are joined into the returned error (results are still returned). Without
// VK_KHR_cooperative_matrix, Run returns an error wrapping
// ErrExtensionMissing.
func Run(ctx context.Context, d *Device, o Options) ([]Result, []Skip, error) {
	shapes, err := d.Shapes()
	if err != nil {
		return nil, nil, err
	}
	if !d.enabled.CoopMat {
		return nil, nil, fmt.Errorf("coopmat: cooperativeMatrix feature: %w", ErrFeatureMissing)
	}
	var res []Result
	var skips []Skip
	var errs []error
	cache := &operandCache{}
	for _, s := range shapes {
		if err := ctx.Err(); err != nil {
			return res, skips, err
		}
		r, err := d.runShape(ctx, s, o, cache)
		switch {
		case err == nil:
			res = append(res, r)
		case isSkip(err):
			skips = append(skips, Skip{Probe: ProbeCoopMatGEMM, Shape: s, Reason: err.Error()})
		default:
			errs = append(errs, err)
		}
	}
	return res, skips, errors.Join(errs...)
}

// RunShape measures one shape: a short measured search over tile
// candidates at SearchSize, then the chosen tile at Size.
func (d *Device) RunShape(ctx context.Context, s Shape, o Options) (Result, error) {
	return d.runShape(ctx, s, o, &operandCache{})
}

// supports says why the device or our kernels cannot run shape s (nil if
// they can).
func (d *Device) supports(s Shape) error {
	f := d.enabled
	switch {
	case s.Scope != ScopeSubgroup:
		return fmt.Errorf("scope %v: only subgroup-scope kernels are implemented: %w", s.Scope, ErrFeatureMissing)
	case s.C != s.Result:
		return fmt.Errorf("C type %v differs from result type %v: not implemented: %w", s.C, s.Result, ErrFeatureMissing)
	case s.A != s.B:
		return fmt.Errorf("mixed A/B types %v/%v: not implemented: %w", s.A, s.B, ErrFeatureMissing)
	case (s.A == Float16 || s.Result == Float16) && !f.Float16:
		return fmt.Errorf("shaderFloat16: %w", ErrFeatureMissing)
	case s.Result == Float16 && !f.Storage16:
		return fmt.Errorf("storageBuffer16BitAccess: %w", ErrFeatureMissing)
	case (s.A == Sint8 || s.A == Uint8) && !f.Int8:
		return fmt.Errorf("shaderInt8: %w", ErrFeatureMissing)
	case s.A == BFloat16 && !(f.BFloat16Type && f.BFloat16CoopMat):
		return fmt.Errorf("%s shaderBFloat16CooperativeMatrix: %w", extBFloat16, ErrExtensionMissing)
	case s.A == E4M3 || s.A == E5M2:
		return fmt.Errorf("fp8 component %v: kernel not implemented yet: %w", s.A, ErrFeatureMissing)
	}
	return nil
}

// coopCandidates are the tiles the search measures for s, from small to
// large: 2×2 to 4×2 subgroups, each computing 32×32 up to 64×128 of C, K
// steps of 64 or 128 bytes. Which wins depends on the device's registers,
// shared memory and matrix engine; only the measurement decides.
func coopCandidates(s Shape) []CoopTile {
	bk := s.K * max(1, 64/(s.K*uint32(max(s.A.Bytes(), 1))))
	fm, fn := max(32/s.M, 1), max(32/s.N, 1) // tiles per 32 rows/cols
	return []CoopTile{
		{WM: 2, WN: 2, TM: fm, TN: fn, BK: bk},
		{WM: 2, WN: 2, TM: 2 * fm, TN: 2 * fn, BK: bk},
		{WM: 2, WN: 2, TM: 2 * fm, TN: 2 * fn, BK: 2 * bk},
		{WM: 2, WN: 2, TM: 2 * fm, TN: 4 * fn, BK: bk},
		{WM: 2, WN: 2, TM: 4 * fm, TN: 2 * fn, BK: bk},
		{WM: 4, WN: 2, TM: 2 * fm, TN: 2 * fn, BK: bk},
		{WM: 2, WN: 4, TM: 2 * fm, TN: 2 * fn, BK: bk},
	}
}

func (d *Device) runShape(ctx context.Context, s Shape, o Options, cache *operandCache) (Result, error) {
	if err := d.supports(s); err != nil {
		return Result{}, fmt.Errorf("coopmat: %v: %w", s, err)
	}
	size := cmp.Or(o.Size, 8192)
	search := min(size, cmp.Or(o.SearchSize, 4096))
	var best *CoopTile
	bestRate := 0.0
	var lastErr error
	for _, t := range coopCandidates(s) {
		l := newLayout(t, s, d.Info.SubgroupSize)
		n := roundDown(search, max(l.bm, l.bn, t.BK))
		if n == 0 || l.check(n, n, n, d.Info) != nil {
			continue
		}
		r, err := d.runCoop(ctx, l, n, o.searchOptions(), cache)
		if err != nil {
			o.progress("coopmat: search %v %v n=%d: %v", s, t, n, err)
			if errors.Is(err, ErrCheckFailed) || ctx.Err() != nil {
				return Result{}, err
			}
			lastErr = err // a tile the driver cannot build: try the next one
			continue
		}
		o.progress("coopmat: search %v %v n=%d: %.4g ops/s (check worst %.3g)", s, t, n, r.OpsPerSecond.Median, r.Check.Worst)
		if r.OpsPerSecond.Median > bestRate {
			best, bestRate = &t, r.OpsPerSecond.Median
		}
	}
	if best == nil {
		return Result{}, fmt.Errorf("coopmat: %v: no tile candidate ran: %v: %w", s, lastErr, ErrFeatureMissing)
	}
	l := newLayout(*best, s, d.Info.SubgroupSize)
	return d.runCoop(ctx, l, roundDown(size, max(l.bm, l.bn, best.BK)), o, cache)
}

func (d *Device) runCoop(ctx context.Context, l cmLayout, n uint32, o Options, cache *operandCache) (Result, error) {
	s := l.s
	if err := l.check(n, n, n, d.Info); err != nil {
		return Result{}, fmt.Errorf("coopmat: %v: %w", s, err)
	}
	a := cache.get(o.Seed, s.A, n, 0)
	bt := cache.get(o.Seed, s.B, n, 1)
	words, err := buildCoopGEMM(spirvVersion(d.Info.apiVersion), l, n, n, n)
	if err != nil {
		return Result{}, fmt.Errorf("coopmat: %v: %w", s, err)
	}
	outBytes := uint64(n) * uint64(n) * uint64(s.Result.Bytes())
	groups := [3]uint32{n / l.bn, n / l.bm, 1}
	out, m, err := d.runGEMM(ctx, words, a.raw, bt.raw, outBytes, groups, 2*float64(n)*float64(n)*float64(n), o.Timing)
	if err != nil {
		return Result{}, fmt.Errorf("coopmat: %v %v: %w", s, l.t, err)
	}
	if o.tamper != nil {
		o.tamper(ProbeCoopMatGEMM, out)
	}
	g := gemmCheck{m: n, n: n, k: n, a: a.values, bt: bt.values, acc: s.C, out: s.Result, lines: o.lines(), seed: o.Seed}
	c, err := g.run(out)
	if err != nil {
		return Result{}, fmt.Errorf("coopmat: %v %v: %w", s, l.t, err)
	}
	return Result{
		Probe: ProbeCoopMatGEMM, Shape: s, BColumnMajor: true, MatrixEngine: true,
		Problem: Problem{M: n, N: n, K: n}, OpsPerSecond: m.Rate, Timing: m.Method, Repeats: m.Repeats,
		Tile: l.t.String(), Check: c,
	}, nil
}

// operandCache keeps the random operands of the current component type, so
// that consecutive shapes of one type share their inputs.
type operandCache struct {
	typ ComponentType
	ops map[[2]uint32]operand
}

func (c *operandCache) get(seed uint64, t ComponentType, n uint32, role uint32) operand {
	if c.ops == nil || c.typ != t {
		c.typ, c.ops = t, map[[2]uint32]operand{}
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

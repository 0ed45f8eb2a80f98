package vulkan

import (
	"cmp"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
)

// defaultPlainTiles are the plain fp32 GEMM candidates the search measures.
var defaultPlainTiles = []PlainTile{
	{BM: 128, BN: 128, BK: 8, TM: 8, TN: 8},
	{BM: 64, BN: 64, BK: 16, TM: 4, TN: 4},
	{BM: 64, BN: 128, BK: 8, TM: 8, TN: 4},
	{BM: 32, BN: 32, BK: 8, TM: 4, TN: 4},
}

// RunPlain measures the non-cooperative-matrix kernels: the fp32 tiled GEMM,
// the fp64 and fp16 FMA kernels and the signed and unsigned packed 8-bit dot
// products. A kernel the device cannot run (no shaderFloat64, no
// shaderFloat16, no integer dot product) is listed in the skips with the
// reason; a kernel that fails its check is an error.
func RunPlain(ctx context.Context, d *Device, o Options) ([]Result, []Skip, error) {
	r, err := RunSGEMM(ctx, d, o)
	if err != nil {
		return nil, nil, err
	}
	res := []Result{r}
	var skips []Skip
	for _, k := range []struct {
		probe string
		run   func() (Result, error)
	}{
		{ProbeFMA64, func() (Result, error) { return RunFMA64(ctx, d, o) }},
		{ProbeFMA16, func() (Result, error) { return RunFMA16(ctx, d, o) }},
		{ProbeDot4I8, func() (Result, error) { return RunDot4(ctx, d, o, true) }},
		{ProbeDot4U8, func() (Result, error) { return RunDot4(ctx, d, o, false) }},
	} {
		r, err := k.run()
		switch {
		case err == nil:
			res = append(res, r)
		case isSkip(err):
			skips = append(skips, Skip{Probe: k.probe, Reason: err.Error()})
		default:
			return nil, nil, err
		}
	}
	return res, skips, nil
}

// RunSGEMM measures the plain fp32 tiled GEMM (no cooperative matrix): a
// short measured search over tile candidates at SearchSize, then the chosen
// tile at Size.
func RunSGEMM(ctx context.Context, d *Device, o Options) (Result, error) {
	size := o.Size
	if size == 0 {
		size = 2048
	}
	cands := o.Tiles
	if len(cands) == 0 {
		cands = defaultPlainTiles
	}
	var fits []PlainTile
	for _, t := range cands {
		if n := roundDown(size, max(t.BM, t.BN, t.BK)); n > 0 && t.validFor(n, n, n, d.Info) == nil {
			fits = append(fits, t)
		}
	}
	if len(fits) == 0 {
		return Result{}, fmt.Errorf("coopmat: %s: no tile candidate fits size %d on %s", ProbePlainSGEMM, size, d.Info.Name)
	}
	best := fits[0]
	if len(fits) > 1 {
		search := min(size, cmp.Or(o.SearchSize, 1024))
		bestRate := 0.0
		for _, t := range fits {
			n := roundDown(search, max(t.BM, t.BN, t.BK))
			if n == 0 || t.validFor(n, n, n, d.Info) != nil {
				continue
			}
			r, err := runSGEMM(ctx, d, t, n, o.searchOptions())
			if err != nil {
				return Result{}, err
			}
			o.progress("coopmat: search %s %v n=%d: %.4g ops/s", ProbePlainSGEMM, t, n, r.OpsPerSecond.Median)
			if r.OpsPerSecond.Median > bestRate {
				best, bestRate = t, r.OpsPerSecond.Median
			}
		}
	}
	return runSGEMM(ctx, d, best, roundDown(size, max(best.BM, best.BN, best.BK)), o)
}

func roundDown(v, to uint32) uint32 { return v / to * to }

func runSGEMM(ctx context.Context, d *Device, t PlainTile, n uint32, o Options) (Result, error) {
	rng := rand.New(rand.NewPCG(o.Seed, uint64(n)))
	a := randomOperand(rng, Float32, int(n*n))
	b := randomOperand(rng, Float32, int(n*n))
	bt := transpose(b.values, n, n)
	words := buildSGEMM(spirvVersion(d.Info.apiVersion), t, n, n, n)
	out, m, err := d.runGEMM(ctx, words, a.raw, b.raw, kernelSetup{}, uint64(n)*uint64(n)*4, [3]uint32{n / t.BN, n / t.BM, 1}, 2*float64(n)*float64(n)*float64(n), o.Timing)
	if err != nil {
		return Result{}, fmt.Errorf("coopmat: %s %v: %w", ProbePlainSGEMM, t, err)
	}
	if o.tamper != nil {
		o.tamper(ProbePlainSGEMM, out)
	}
	g := gemmCheck{m: n, n: n, k: n, a: a.values, bt: bt, acc: Float32, out: Float32, lines: o.lines(), seed: o.Seed}
	c, err := g.run(out)
	if err != nil {
		return Result{}, fmt.Errorf("coopmat: %s %v: %w", ProbePlainSGEMM, t, err)
	}
	return Result{
		Probe: ProbePlainSGEMM, Shape: Shape{M: 1, N: 1, K: 1, A: Float32, B: Float32, C: Float32, Result: Float32},
		Problem: Problem{M: n, N: n, K: n}, OpsPerSecond: m.Rate, Timing: m.Method, Repeats: m.Repeats,
		Tile: t.String(), Check: c,
	}, nil
}

func transpose(v []float64, rows, cols uint32) []float64 {
	out := make([]float64, len(v))
	for r := range rows {
		for c := range cols {
			out[c*rows+r] = v[r*cols+c]
		}
	}
	return out
}

// isSkip reports whether err means "cannot run here" rather than "wrong".
func isSkip(err error) bool {
	return errors.Is(err, ErrFeatureMissing) || errors.Is(err, ErrExtensionMissing)
}

// RunFMA64 measures fp64 FMA throughput. Without shaderFloat64 it returns an
// error wrapping ErrFeatureMissing.
func RunFMA64(ctx context.Context, d *Device, o Options) (Result, error) {
	if !d.enabled.Float64 {
		return Result{}, fmt.Errorf("coopmat: %s: shaderFloat64: %w", ProbeFMA64, ErrFeatureMissing)
	}
	inv, steps := o.FMAInvocations, o.FMASteps
	if inv == 0 {
		inv = 1 << 20
	}
	if steps == 0 {
		steps = 4096
	}
	k := fmaKernel{Chains: 8, Unroll: 16, Local: 256}
	k.Iters = max(steps/k.Unroll, 1)
	inv = max(inv/k.Local, 1) * k.Local
	out, m, err := d.runKernel(ctx, k.build(spirvVersion(d.Info.apiVersion)), nil, kernelSetup{}, uint64(inv)*8,
		[3]uint32{inv / k.Local, 1, 1}, k.ops()*float64(inv), o.Timing)
	if err != nil {
		return Result{}, fmt.Errorf("coopmat: %s: %w", ProbeFMA64, err)
	}
	if o.tamper != nil {
		o.tamper(ProbeFMA64, out)
	}
	c, err := checkFMA(k, out, inv, o.Seed)
	if err != nil {
		return Result{}, fmt.Errorf("coopmat: %s: %w", ProbeFMA64, err)
	}
	return Result{
		Probe: ProbeFMA64, Shape: Shape{M: 1, N: 1, K: 1, A: Float64, B: Float64, C: Float64, Result: Float64},
		Problem: Problem{M: inv, N: k.Chains, K: k.Iters * k.Unroll}, OpsPerSecond: m.Rate, Timing: m.Method,
		Repeats: m.Repeats, Tile: fmt.Sprintf("local=%d chains=%d unroll=%d", k.Local, k.Chains, k.Unroll), Check: c,
	}, nil
}

// fmaTolerance is the relative tolerance of the FMA check: the chains
// contract (×0.999 per step), so a fused-vs-unfused rounding difference of
// one ulp per step stays below ulp/(1−0.999) ≈ 1000 ulp ≈ 2e-13.
const fmaTolerance = 1e-11

// checkFMA compares 4096 sampled invocations (all when fewer) with the CPU.
func checkFMA(k fmaKernel, out []byte, inv uint32, seed uint64) (Check, error) {
	rng := rand.New(rand.NewPCG(seed, 0x666d61))
	var c Check
	for s := range min(inv, 4096) {
		gid := s
		if inv > 4096 {
			gid = rng.Uint32N(inv)
		}
		ref := k.reference(gid)
		got := math.Float64frombits(binary.LittleEndian.Uint64(out[8*gid:]))
		diff, tol := math.Abs(got-ref), fmaTolerance*math.Abs(ref)
		c.Elements++
		c.MaxError, c.Tolerance, c.Worst = math.Max(c.MaxError, diff), math.Max(c.Tolerance, tol), math.Max(c.Worst, diff/tol)
		if !(diff <= tol) {
			return c, fmt.Errorf("out[%d] = %g, reference %g: %w", gid, got, ref, ErrCheckFailed)
		}
	}
	return c, nil
}

package alu

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/everycycle/appraise/coopmat/vk"
)

// RunFMA64 measures fp64 FMA throughput. Without shaderFloat64 it returns an
// error wrapping ErrFeatureMissing.
func RunFMA64(ctx context.Context, d *vk.Device, o Options) (vk.Result, error) {
	if !d.Enabled.Float64 {
		return vk.Result{}, fmt.Errorf("%s: shaderFloat64: %w", vk.ProbeFMA64, vk.ErrFeatureMissing)
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
	out, m, err := d.RunKernel(ctx, k.build(vk.SpirvVersion(d.Info.API)), nil, vk.KernelSetup{}, uint64(inv)*8,
		[3]uint32{inv / k.Local, 1, 1}, k.ops()*float64(inv), o.Timing)
	if err != nil {
		return vk.Result{}, fmt.Errorf("%s: %w", vk.ProbeFMA64, err)
	}
	if o.tamper != nil {
		o.tamper(vk.ProbeFMA64, out)
	}
	c, err := checkFMA(k, out, inv, o.Seed)
	if err != nil {
		return vk.Result{}, fmt.Errorf("%s: %w", vk.ProbeFMA64, err)
	}
	return vk.Result{
		Probe: vk.ProbeFMA64, Shape: vk.Shape{M: 1, N: 1, K: 1, A: vk.Float64, B: vk.Float64, C: vk.Float64, Result: vk.Float64},
		Problem: vk.Problem{M: inv, N: k.Chains, K: k.Iters * k.Unroll}, OpsPerSecond: m.Rate, Timing: m.Method,
		Repeats: m.Repeats, Tile: fmt.Sprintf("local=%d chains=%d unroll=%d", k.Local, k.Chains, k.Unroll), Check: c,
	}, nil
}

// fmaTolerance is the FMA check's relative tolerance: the chains contract
// ×0.999 a step, so an ulp of rounding a step stays within 1000 ulp.
const fmaTolerance = 1e-11

// checkFMA compares up to 4096 sampled invocations with the CPU.
func checkFMA(k fmaKernel, out []byte, inv uint32, seed uint64) (vk.Check, error) {
	rng := rand.New(rand.NewPCG(seed, 0x666d61))
	var c vk.Check
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
			return c, fmt.Errorf("out[%d] = %g, reference %g: %w", gid, got, ref, vk.ErrCheckFailed)
		}
	}
	return c, nil
}

package alu

import (
	"math"

	"github.com/everycycle/appraise/coopmat/spirv"
	"github.com/everycycle/appraise/coopmat/vk"
)

// fmaKernel is the fp64 FMA kernel: each invocation runs Chains chains
// x ← fma(x, fmaA, fmaB) for Iters·Unroll steps from fmaStart and writes
// their sum.
type fmaKernel struct {
	Chains, Iters, Unroll, Local uint32
}

// x converges to fmaB/(1-fmaA) = 1 and stays in [0, 2].
const (
	fmaA = 0.999
	fmaB = 0.001
)

func (k fmaKernel) ops() float64 { return 2 * float64(k.Chains) * float64(k.Iters) * float64(k.Unroll) }

func fmaStart(gid, c uint32) float64 {
	return float64(gid%1024)*(1.0/1024) + float64(c)*0.125
}

func (k fmaKernel) reference(gid uint32) float64 {
	sum := 0.0
	for c := uint32(0); c < k.Chains; c++ {
		x := fmaStart(gid, c)
		for range k.Iters * k.Unroll {
			x = math.FMA(x, fmaA, fmaB)
		}
		sum += x
	}
	return sum
}

// build emits the kernel: one fp64 out per invocation at binding 0;
// dispatch (invocations/Local, 1, 1).
func (k fmaKernel) build(version uint32) []uint32 {
	b := vk.NewBuilder(version)
	mod, f := b.M, b.F
	mod.AddCapability(spirv.CapabilityFloat64)
	f64 := mod.TypeFloat(64)
	out, ptr := b.Storage(f64, 8)
	gid := b.Builtin(spirv.BuiltInGlobalInvocationID, false)
	base := f.Value(spirv.OpConvertUToF, f64, uint32(b.Mod(gid, b.C(1024))))
	base = f.Binary(spirv.OpFMul, f64, base, mod.ConstFloat64(1.0/1024))
	carried := make([]spirv.Carried, k.Chains)
	for c := range carried {
		x := f.Binary(spirv.OpFAdd, f64, base, mod.ConstFloat64(float64(c)*0.125))
		carried[c] = spirv.Carried{Type: f64, Init: x}
	}
	a, bb := mod.ConstFloat64(fmaA), mod.ConstFloat64(fmaB)
	xs := f.Loop(b.C(k.Iters), carried, func(_ spirv.ID, xs []spirv.ID) []spirv.ID {
		next := append([]spirv.ID(nil), xs...)
		for range k.Unroll {
			for c := range next {
				next[c] = f.ExtInst(f64, b.Glsl, spirv.GLSLFma, next[c], a, bb)
			}
		}
		return next
	})
	sum := xs[0]
	for _, x := range xs[1:] {
		sum = f.Binary(spirv.OpFAdd, f64, sum, x)
	}
	f.Store(b.Elem(ptr, out, gid), sum)
	return b.Finish(k.Local, 1, 1)
}

package coopmat

import (
	"github.com/everycycle/appraise/coopmat/internal/spirv"
)

// fma16Kernel is the fp16 FMA throughput kernel on packed vectors: each
// invocation runs Chains independent chains of Lanes-wide 16-bit float
// vectors (Lanes 2 or 4; GPUs with packed half math run a vec4 as two
// 2-wide FMAs), each advanced by Iters·Unroll pairs
//
//	x ← fma(fma(x, 2, 6g), 0.5, −2g) = x + g
//
// with g = fp16Grid. Every value is an integer multiple of g small enough
// for fp16's 11-bit significand (fp16MaxPairs caps the pairs), so each
// product is a scaling by a power of two and each sum is exact: the result
// is the same whether the driver fuses the FMA or not, and a chain ends at
// its start plus pairs·g, a closed form that proves every FMA ran. The
// invocation writes the FNV-1a fold of its final values' bit patterns.
//
// MulAdd, used only by a flag-gated hardware test, replaces every step by
// x ← x·½ + 1 written as OpFMul and OpFAdd (contractable): a geometric
// recurrence no compiler folds into a closed form, converging to exactly 2
// (x·½ is exact; each sum rounds, ties to even, and lands on 2 within 30
// steps), to see whether a driver issues packed half FMAs for that form.
// On an H200 (driver 580.159.04) it "ran" at 1,020 TFLOP/s at any work
// size: the driver reassociated each unrolled block of sixteen steps into
// one FMA, so the form measures the compiler, not the ALUs, and stays out
// of RunFMA16.
type fma16Kernel struct {
	Chains, Lanes, Iters, Unroll, Local uint32
	MulAdd                              bool
}

// fp16Grid is g; fp16Offsets is the number of distinct chain starts (an
// invocation's start class is its index mod 16, and it holds up to 32
// lanes); fp16MaxPairs is the most pairs per chain that keep every value
// exact (see fma16Kernel.exact).
const (
	fp16Grid     = 0.25
	fp16Offsets  = 512
	fp16MaxPairs = 3580
)

// pairs is the FMA pairs each chain lane runs per dispatch.
func (k fma16Kernel) pairs() uint32 { return k.Iters * k.Unroll }

// ops is the operation count of one invocation: two FMAs per pair, each 2
// operations per lane.
func (k fma16Kernel) ops() float64 {
	return 2 * opsPerFMA * float64(k.Chains) * float64(k.Lanes) * float64(k.pairs())
}

// base is the start of every chain before its offset, in units of g: the
// chains run from base … base+511 up to base+511+pairs, centred on zero.
func (k fma16Kernel) base() int32 { return -int32(k.pairs()/2) - fp16Offsets/2 }

// offset is the start offset of lane l of chain c in invocation gid.
func (k fma16Kernel) offset(gid, c, l uint32) uint32 { return (gid&15)<<5 + k.Lanes*c + l }

// exact reports whether every value of every chain is an integer multiple
// of g within fp16's significand. From x = n·g a pair makes (2n+6)·g =
// (n+3)·2g, then (n+3)·g, then (n+1)·g; all are exact while |n+3| and |n|
// stay at most 2^11.
func (k fma16Kernel) exact() bool {
	lo, hi := int64(k.base()), int64(k.base())+fp16Offsets-1+int64(k.pairs())
	return -lo <= 2048 && hi+2 <= 2048 && k.Chains*k.Lanes <= 32
}

// reference is the output of every invocation whose index is gid mod 16.
func (k fma16Kernel) reference(gid uint32) uint32 {
	h := fnvBasis
	for c := range k.Chains {
		for l := uint32(0); l < k.Lanes; l += 2 {
			lo := fp16At(int64(k.base()) + int64(k.offset(gid, c, l)) + int64(k.pairs()))
			hi := fp16At(int64(k.base()) + int64(k.offset(gid, c, l+1)) + int64(k.pairs()))
			if k.MulAdd {
				lo, hi = f16Bits(2), f16Bits(2)
			}
			h = fnv(h, uint32(lo)|uint32(hi)<<16)
		}
	}
	return h
}

// fp16At is the binary16 bit pattern of n·g (exact for |n| ≤ 2^11).
func fp16At(n int64) uint16 { return f16Bits(float32(float64(n) * fp16Grid)) }

// build emits the kernel; binding 0 is the uint32 output, one per
// invocation. Dispatch (invocations/Local, 1, 1) workgroups.
func (k fma16Kernel) build(version uint32) []uint32 {
	b := newBuilder(version)
	mod, f := b.m, b.f
	mod.AddCapability(spirv.CapabilityFloat16)
	h := mod.TypeFloat(16)
	hv, uv := mod.TypeVector(h, k.Lanes), mod.TypeVector(b.u32, k.Lanes)
	out, ptr := b.storage(b.u32, 4)
	gid := b.builtin(spirv.BuiltInGlobalInvocationID, false)
	first := b.addC(b.shl(b.and(gid, b.c(15)), 5), uint32(k.base()))
	firstV := f.Composite(uv, repeat(first, k.Lanes)...)
	carried := make([]spirv.Carried, k.Chains)
	for c := range carried {
		lanes := make([]spirv.ID, k.Lanes)
		for l := range lanes {
			lanes[l] = b.c(k.Lanes*uint32(c) + uint32(l))
		}
		n := f.Binary(spirv.OpIAdd, uv, firstV, mod.ConstComposite(uv, lanes...))
		x := f.Binary(spirv.OpFMul, hv, f.Value(spirv.OpConvertSToF, hv, uint32(n)), b.half(hv, k.Lanes, fp16Grid))
		carried[c] = spirv.Carried{Type: hv, Init: x}
	}
	two, six := b.half(hv, k.Lanes, 2), b.half(hv, k.Lanes, 6*fp16Grid)
	half, m2 := b.half(hv, k.Lanes, 0.5), b.half(hv, k.Lanes, -2*fp16Grid)
	xs := f.Loop(b.c(k.Iters), carried, func(_ spirv.ID, xs []spirv.ID) []spirv.ID {
		next := append([]spirv.ID(nil), xs...)
		fma := func(x, m, a spirv.ID) spirv.ID { return f.ExtInst(hv, b.glsl, spirv.GLSLFma, x, m, a) }
		if k.MulAdd {
			one := b.half(hv, k.Lanes, 1)
			fma = func(x, _, _ spirv.ID) spirv.ID {
				return f.Binary(spirv.OpFAdd, hv, f.Binary(spirv.OpFMul, hv, x, half), one)
			}
		}
		for range k.Unroll {
			for c := range next {
				next[c] = fma(next[c], two, six)
			}
			for c := range next {
				next[c] = fma(next[c], half, m2)
			}
		}
		return next
	})
	words := b.u32
	if k.Lanes > 2 {
		words = mod.TypeVector(b.u32, k.Lanes/2)
	}
	hash := b.c(fnvBasis)
	for _, x := range xs {
		w := f.Value(spirv.OpBitcast, words, uint32(x))
		if k.Lanes == 2 {
			hash = b.fnv(hash, w)
			continue
		}
		for i := range k.Lanes / 2 {
			hash = b.fnv(hash, f.Extract(b.u32, w, i))
		}
	}
	f.Store(b.elem(ptr, out, gid), hash)
	return b.finish(k.Local, 1, 1)
}

// half returns the constant of type hv (an fp16 vector of n lanes) with
// every lane v.
func (b *builder) half(hv spirv.ID, n uint32, v float64) spirv.ID {
	s := b.m.ConstBits(b.m.TypeFloat(16), uint32(f16Bits(float32(v))))
	return b.m.ConstComposite(hv, repeat(s, n)...)
}

func repeat(id spirv.ID, n uint32) []spirv.ID {
	out := make([]spirv.ID, n)
	for i := range out {
		out[i] = id
	}
	return out
}

package alu

import (
	"encoding/binary"

	"github.com/everycycle/appraise/coopmat/spirv"
	"github.com/everycycle/appraise/coopmat/vk"
)

// fma16Kernel is the fp16 FMA kernel: each invocation runs Chains chains of
// Lanes-wide (2 or 4) fp16 vectors, each advanced by Iters·Unroll pairs
// x ← fma(fma(x, 2, 6g), 0.5, −2g) = x + g (g = fp16Grid), every value
// exact, and writes the FNV-1a fold of its final values' bits.
type fma16Kernel struct {
	Chains, Lanes, Iters, Unroll, Local uint32
	Form                                fp16Form
}

// fp16Form is how a kernel writes each step x ← x·m + a.
type fp16Form int

const (
	// fp16FMA is GLSL.std.450 Fma with constant operands.
	fp16FMA fp16Form = iota
	// fp16FMALoaded is Fma with m and a loaded from binding 0.
	fp16FMALoaded
)

func (f fp16Form) String() string {
	return [...]string{"fma", "fma-loaded"}[f]
}

func (f fp16Form) loaded() bool { return f != fp16FMA }

// fp16Grid is g; fp16Offsets the distinct chain starts (16 classes of up
// to 32 lanes); fp16MaxPairs the most pairs that keep every value exact.
const (
	fp16Grid     = 0.25
	fp16Offsets  = 512
	fp16MaxPairs = 3580
)

func (k fma16Kernel) pairs() uint32 { return k.Iters * k.Unroll }

func (k fma16Kernel) ops() float64 {
	return 2 * opsPerFMA * float64(k.Chains) * float64(k.Lanes) * float64(k.pairs())
}

// base is every chain's start before its offset, in units of g, so that
// the chains are centred on zero.
func (k fma16Kernel) base() int32 { return -int32(k.pairs()/2) - fp16Offsets/2 }

func (k fma16Kernel) offset(gid, c, l uint32) uint32 { return (gid&15)<<5 + k.Lanes*c + l }

// exact reports whether every value of every chain stays an exact multiple
// of g: a pair from n·g passes (n+3)·2g and (n+3)·g, exact while |n+3| ≤ 2^11.
func (k fma16Kernel) exact() bool {
	lo, hi := int64(k.base()), int64(k.base())+fp16Offsets-1+int64(k.pairs())
	return -lo <= 2048 && hi+2 <= 2048 && k.Chains*k.Lanes <= 32
}

// reference is the output of every invocation whose index is gid mod 16.
func (k fma16Kernel) reference(gid uint32) uint32 {
	h := vk.FnvBasis
	for c := range k.Chains {
		for l := uint32(0); l < k.Lanes; l += 2 {
			lo := fp16At(int64(k.base()) + int64(k.offset(gid, c, l)) + int64(k.pairs()))
			hi := fp16At(int64(k.base()) + int64(k.offset(gid, c, l+1)) + int64(k.pairs()))
			h = vk.Fnv(h, uint32(lo)|uint32(hi)<<16)
		}
	}
	return h
}

func fp16At(n int64) uint16 { return vk.F16Bits(float32(float64(n) * fp16Grid)) }

// fp16Operands are the loaded forms' m and a of a pair's two steps.
var fp16Operands = [4]float32{2, 6 * fp16Grid, 0.5, -2 * fp16Grid}

// input is binding 0 of the loaded forms: each operand twice in a word.
func (k fma16Kernel) input() []byte {
	out := make([]byte, 0, 4*len(fp16Operands))
	for _, v := range fp16Operands {
		h := uint32(vk.F16Bits(v))
		out = binary.LittleEndian.AppendUint32(out, h|h<<16)
	}
	return out
}

// build emits the kernel: one uint32 out per invocation (binding 0, or 1
// after the loaded operands); dispatch (invocations/Local, 1, 1).
func (k fma16Kernel) build(version uint32) []uint32 {
	b := vk.NewBuilder(version)
	mod, f := b.M, b.F
	mod.AddCapability(spirv.CapabilityFloat16)
	h := mod.TypeFloat(16)
	hv, uv := mod.TypeVector(h, k.Lanes), mod.TypeVector(b.U32, k.Lanes)
	var operands [len(fp16Operands)]spirv.ID
	if k.Form.loaded() {
		in, inPtr := b.Storage(b.U32, 4)
		mod.Decorate(in, spirv.DecorationNonWritable)
		h2 := mod.TypeVector(h, 2)
		for i := range operands {
			v := f.Value(spirv.OpBitcast, h2, uint32(f.Load(b.U32, b.Elem(inPtr, in, b.C(uint32(i))))))
			if k.Lanes > 2 {
				v = f.Composite(hv, repeat(v, k.Lanes/2)...)
			}
			operands[i] = v
		}
	} else {
		for i, v := range fp16Operands {
			operands[i] = half(b, hv, k.Lanes, float64(v))
		}
	}
	out, ptr := b.Storage(b.U32, 4)
	gid := b.Builtin(spirv.BuiltInGlobalInvocationID, false)
	first := b.AddC(b.Shl(b.And(gid, b.C(15)), 5), uint32(k.base()))
	firstV := f.Composite(uv, repeat(first, k.Lanes)...)
	carried := make([]spirv.Carried, k.Chains)
	for c := range carried {
		lanes := make([]spirv.ID, k.Lanes)
		for l := range lanes {
			lanes[l] = b.C(k.Lanes*uint32(c) + uint32(l))
		}
		n := f.Binary(spirv.OpIAdd, uv, firstV, mod.ConstComposite(uv, lanes...))
		x := f.Binary(spirv.OpFMul, hv, f.Value(spirv.OpConvertSToF, hv, uint32(n)), half(b, hv, k.Lanes, fp16Grid))
		carried[c] = spirv.Carried{Type: hv, Init: x}
	}
	step := func(x, m, a spirv.ID) spirv.ID { return f.ExtInst(hv, b.Glsl, spirv.GLSLFma, x, m, a) }
	xs := f.Loop(b.C(k.Iters), carried, func(_ spirv.ID, xs []spirv.ID) []spirv.ID {
		next := append([]spirv.ID(nil), xs...)
		for range k.Unroll {
			for c := range next {
				next[c] = step(next[c], operands[0], operands[1])
			}
			for c := range next {
				next[c] = step(next[c], operands[2], operands[3])
			}
		}
		return next
	})
	words := b.U32
	if k.Lanes > 2 {
		words = mod.TypeVector(b.U32, k.Lanes/2)
	}
	hash := b.C(vk.FnvBasis)
	for _, x := range xs {
		w := f.Value(spirv.OpBitcast, words, uint32(x))
		if k.Lanes == 2 {
			hash = b.Fnv(hash, w)
			continue
		}
		for i := range k.Lanes / 2 {
			hash = b.Fnv(hash, f.Extract(b.U32, w, i))
		}
	}
	f.Store(b.Elem(ptr, out, gid), hash)
	return b.Finish(k.Local, 1, 1)
}

func half(b *vk.Builder, hv spirv.ID, n uint32, v float64) spirv.ID {
	s := b.M.ConstBits(b.M.TypeFloat(16), uint32(vk.F16Bits(float32(v))))
	return b.M.ConstComposite(hv, repeat(s, n)...)
}

func repeat(id spirv.ID, n uint32) []spirv.ID {
	out := make([]spirv.ID, n)
	for i := range out {
		out[i] = id
	}
	return out
}

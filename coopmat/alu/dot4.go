package alu

import (
	"encoding/binary"
	"sync"

	"github.com/everycycle/appraise/coopmat/spirv"
	"github.com/everycycle/appraise/coopmat/vk"
	"github.com/everycycle/appraise/internal/measure/packed"
)

// dot4Kernel is the packed 8-bit dot-product kernel (OpSDot or OpUDot, then
// a wrapping OpIAdd): each invocation runs Chains pairs (a, b) through
// Iters·Unroll invertible rounds a += dot4(b, w); b += dot4(a, w), w loaded
// from binding 0, starting by invocation index mod dotClasses, and writes
// the FNV-1a fold of its words.
type dot4Kernel struct {
	Signed                       bool
	Chains, Iters, Unroll, Local uint32
}

// The packed weights (3, −5, 7, −11) and (3, 5, 7, 11), the start seed,
// the start classes and the most rounds per chain.
const (
	dotWI8       uint32 = 0xF507FB03
	dotWU8       uint32 = 0x0B070503
	dotSeed      uint32 = 0x0D07C0DE
	dotClasses          = 64
	dotMaxRounds        = 4096
)

func (k dot4Kernel) rounds() uint32 { return k.Iters * k.Unroll }

func (k dot4Kernel) ops() float64 { return 2 * opsPerDot4 * float64(k.Chains) * float64(k.rounds()) }

func (k dot4Kernel) weights() uint32 {
	if k.Signed {
		return dotWI8
	}
	return dotWU8
}

func (k dot4Kernel) input() []byte { return binary.LittleEndian.AppendUint32(nil, k.weights()) }

func dotStart(s, c uint32) (a, b uint32) {
	a = s*0x9E3779B1 + c*0x85EBCA77 + dotSeed
	return a, a*0x27D4EB2F + 0x165667B1
}

func (k dot4Kernel) round(a, b uint32) (uint32, uint32) {
	return packed.DotRound(a, b, k.weights(), k.Signed)
}

// table is each start class's output word.
func (k dot4Kernel) table() [dotClasses]uint32 {
	var t [dotClasses]uint32
	var wg sync.WaitGroup
	for s := range t {
		wg.Go(func() {
			h := vk.FnvBasis
			for c := range k.Chains {
				a, b := dotStart(uint32(s), c)
				for range k.rounds() {
					a, b = k.round(a, b)
				}
				h = vk.Fnv(vk.Fnv(h, a), b)
			}
			t[s] = h
		})
	}
	wg.Wait()
	return t
}

// build emits the kernel: weights at binding 0, one uint32 out per
// invocation at 1; dispatch (invocations/Local, 1, 1).
func (k dot4Kernel) build(version uint32) []uint32 {
	b := vk.NewBuilder(version)
	mod, f := b.M, b.F
	in, inPtr := b.Storage(b.U32, 4)
	mod.Decorate(in, spirv.DecorationNonWritable)
	out, ptr := b.Storage(b.U32, 4)
	gid := b.Builtin(spirv.BuiltInGlobalInvocationID, false)
	w := f.Load(b.U32, b.Elem(inPtr, in, b.C(0)))
	s := b.MulC(b.And(gid, b.C(dotClasses-1)), 0x9E3779B1)
	carried := make([]spirv.Carried, 0, 2*k.Chains)
	for c := range k.Chains {
		a0, _ := dotStart(0, c)
		a := b.AddC(s, a0)
		carried = append(carried, spirv.Carried{Type: b.U32, Init: a},
			spirv.Carried{Type: b.U32, Init: b.AddC(b.MulC(a, 0x27D4EB2F), 0x165667B1)})
	}
	op, dt := spirv.OpUDot, b.U32
	if k.Signed {
		op, dt = spirv.OpSDot, mod.TypeInt(32, true)
	}
	vs := f.Loop(b.C(k.Iters), carried, func(_ spirv.ID, vs []spirv.ID) []spirv.ID {
		next := append([]spirv.ID(nil), vs...)
		for range k.Unroll {
			for c := 0; c < len(next); c += 2 {
				next[c] = b.Add(next[c], f.DotPacked(op, dt, next[c+1], w))
			}
			for c := 0; c < len(next); c += 2 {
				next[c+1] = b.Add(next[c+1], f.DotPacked(op, dt, next[c], w))
			}
		}
		return next
	})
	hash := b.C(vk.FnvBasis)
	for _, v := range vs {
		hash = b.Fnv(hash, v)
	}
	f.Store(b.Elem(ptr, out, gid), hash)
	return b.Finish(k.Local, 1, 1)
}

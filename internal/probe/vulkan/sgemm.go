package vulkan

import (
	"fmt"

	"github.com/everycycle/appraise/internal/probe/vulkan/internal/spirv"
)

// PlainTile is the tiling of the plain fp32 GEMM: a workgroup computes a
// BM×BN block of C, staging BM×BK of A and BK×BN of B in shared memory per
// step; each invocation computes a TM×TN micro-tile.
type PlainTile struct {
	BM, BN, BK, TM, TN uint32
}

// String renders the tile as e.g. "64x64x8/4x4".
func (t PlainTile) String() string {
	return fmt.Sprintf("%dx%dx%d/%dx%d", t.BM, t.BN, t.BK, t.TM, t.TN)
}

// threads is the workgroup size.
func (t PlainTile) threads() uint32 { return (t.BM / t.TM) * (t.BN / t.TN) }

// validFor reports why t cannot run an m×n×k problem on d (nil if it can).
func (t PlainTile) validFor(m, n, k uint32, info DeviceInfo) error {
	switch {
	case t.TM == 0 || t.TN == 0 || t.BK == 0 || t.BM%t.TM != 0 || t.BN%t.TN != 0:
		return fmt.Errorf("tile %v: micro-tile does not divide block", t)
	case m%t.BM != 0 || n%t.BN != 0 || k%t.BK != 0:
		return fmt.Errorf("tile %v does not divide %dx%dx%d", t, m, n, k)
	case (t.BM*t.BK)%t.threads() != 0 || (t.BK*t.BN)%t.threads() != 0:
		return fmt.Errorf("tile %v: staging does not divide among %d invocations", t, t.threads())
	case t.threads() > info.MaxInvocations:
		return fmt.Errorf("tile %v: %d invocations over the limit %d", t, t.threads(), info.MaxInvocations)
	case 4*(t.BM*t.BK+t.BK*t.BN) > info.MaxSharedBytes:
		return fmt.Errorf("tile %v: shared memory over %d bytes", t, info.MaxSharedBytes)
	}
	return nil
}

// buildSGEMM emits C(m×n) = A(m×k)·B(k×n), all row-major fp32, bindings
// A=0, B=1, C=2. Dispatch (n/BN, m/BM, 1) workgroups.
func buildSGEMM(version uint32, t PlainTile, m, n, k uint32) []uint32 {
	b := newBuilder(version)
	mod, f := b.m, b.f
	f32 := mod.TypeFloat(32)
	aVar, sbPtr := b.storage(f32, 4)
	bVar, _ := b.storage(f32, 4)
	cVar, _ := b.storage(f32, 4)
	as, shPtr := b.shared(f32, t.BM*t.BK)
	bs, _ := b.shared(f32, t.BK*t.BN)
	lid := b.builtin(spirv.BuiltInLocalInvocationIndex, true)
	wgx, wgy := b.builtinVec(spirv.BuiltInWorkgroupID)
	threads := t.threads()
	tx, ty := b.mod(lid, b.c(t.BN/t.TN)), b.div(lid, b.c(t.BN/t.TN))
	m0, n0 := b.mulC(wgy, t.BM), b.mulC(wgx, t.BN)
	zero := mod.ConstFloat32(0)
	carried := make([]spirv.Carried, t.TM*t.TN)
	for i := range carried {
		carried[i] = spirv.Carried{Type: f32, Init: zero}
	}
	acc := f.Loop(b.c(k/t.BK), carried, func(kt spirv.ID, acc []spirv.ID) []spirv.ID {
		k0 := b.mulC(kt, t.BK)
		for l := uint32(0); l < t.BM*t.BK/threads; l++ {
			idx := b.addC(lid, l*threads)
			r, c := b.div(idx, b.c(t.BK)), b.mod(idx, b.c(t.BK))
			g := b.add(b.mulC(b.add(m0, r), k), b.add(k0, c))
			f.Store(f.AccessChain(shPtr, as, idx), f.Load(f32, b.elem(sbPtr, aVar, g)))
		}
		for l := uint32(0); l < t.BK*t.BN/threads; l++ {
			idx := b.addC(lid, l*threads)
			r, c := b.div(idx, b.c(t.BN)), b.mod(idx, b.c(t.BN))
			g := b.add(b.mulC(b.add(k0, r), n), b.add(n0, c))
			f.Store(f.AccessChain(shPtr, bs, idx), f.Load(f32, b.elem(sbPtr, bVar, g)))
		}
		b.barrier()
		next := append([]spirv.ID(nil), acc...)
		rowBase, colBase := b.mulC(ty, t.TM), b.mulC(tx, t.TN)
		for kk := uint32(0); kk < t.BK; kk++ {
			av := make([]spirv.ID, t.TM)
			for i := range av {
				idx := b.addC(b.mulC(b.addC(rowBase, uint32(i)), t.BK), kk)
				av[i] = f.Load(f32, f.AccessChain(shPtr, as, idx))
			}
			bv := make([]spirv.ID, t.TN)
			for j := range bv {
				idx := b.add(b.c(kk*t.BN), b.addC(colBase, uint32(j)))
				bv[j] = f.Load(f32, f.AccessChain(shPtr, bs, idx))
			}
			for i := range av {
				for j := range bv {
					p := uint32(i)*t.TN + uint32(j)
					next[p] = f.ExtInst(f32, b.glsl, spirv.GLSLFma, av[i], bv[j], next[p])
				}
			}
		}
		b.barrier()
		return next
	})
	for i := uint32(0); i < t.TM; i++ {
		row := b.add(m0, b.addC(b.mulC(ty, t.TM), i))
		for j := uint32(0); j < t.TN; j++ {
			col := b.add(n0, b.addC(b.mulC(tx, t.TN), j))
			f.Store(b.elem(sbPtr, cVar, b.add(b.mulC(row, n), col)), acc[i*t.TN+j])
		}
	}
	return b.finish(threads, 1, 1)
}

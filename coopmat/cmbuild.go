package coopmat

import (
	"github.com/everycycle/appraise/coopmat/internal/spirv"
)

// cmGen carries the IDs shared by the pieces of the cooperative-matrix GEMM.
type cmGen struct {
	*builder
	l                  cmLayout
	m, n, k            uint32
	uvec4, shPtr, gPtr spirv.ID
	aG, bG, aS, bS     spirv.ID // global and shared variables
	lid, m0, n0        spirv.ID
}

// buildCoopGEMM emits Result(m×n) = A(m×k)·B(k×n) with A row-major, B
// column-major (n rows of k) and the result row-major, bindings A=0, B=1,
// C=2. Dispatch (n/BN, m/BM, 1) workgroups.
func buildCoopGEMM(version uint32, l cmLayout, m, n, k uint32) ([]uint32, error) {
	b := newBuilder(version)
	mod, f, s := b.m, b.f, l.s
	mod.AddCapability(spirv.CapabilityGroupNonUniform)
	g := &cmGen{builder: b, l: l, m: m, n: n, k: k}
	tA, err := componentType(mod, s.A)
	if err != nil {
		return nil, err
	}
	tB, err := componentType(mod, s.B)
	if err != nil {
		return nil, err
	}
	tC, err := componentType(mod, s.Result)
	if err != nil {
		return nil, err
	}
	if s.Result == Float16 {
		mod.AddCapability(spirv.CapabilityStorageBuffer16BitAccess)
	}
	g.uvec4 = mod.TypeVector(b.u32, 4)
	g.aG, g.gPtr = b.storage(g.uvec4, 16)
	g.bG, _ = b.storage(g.uvec4, 16)
	cG, cPtr := b.storage(tC, uint32(s.Result.Bytes()))
	g.aS, g.shPtr = b.shared(g.uvec4, l.bm*l.strideA)
	g.bS, _ = b.shared(g.uvec4, l.bn*l.strideB)
	scope := spirv.Scope(s.Scope)
	matA := mod.TypeCooperativeMatrix(tA, scope, s.M, s.K, spirv.MatrixA)
	matB := mod.TypeCooperativeMatrix(tB, scope, s.K, s.N, spirv.MatrixB)
	matC := mod.TypeCooperativeMatrix(tC, scope, s.M, s.N, spirv.MatrixAccumulator)

	g.lid = b.builtin(spirv.BuiltInLocalInvocationIndex, true)
	sg := b.builtin(spirv.BuiltInSubgroupID, true)
	wgx, wgy := b.builtinVec(spirv.BuiltInWorkgroupID)
	g.m0, g.n0 = b.mulC(wgy, l.bm), b.mulC(wgx, l.bn)
	sgM, sgN := b.div(sg, b.c(l.t.WN)), b.mod(sg, b.c(l.t.WN))

	zero := mod.ConstComposite(matC, zeroOf(mod, s.Result, tC))
	nAcc := l.t.TM * l.t.TN
	regs := g.loadGlobal(b.c(0))
	carried := make([]spirv.Carried, 0, int(nAcc)+len(regs))
	for range nAcc {
		carried = append(carried, spirv.Carried{Type: matC, Init: zero})
	}
	for _, r := range regs {
		carried = append(carried, spirv.Carried{Type: g.uvec4, Init: r})
	}
	steps := k / l.t.BK
	ops := matrixOperands(s)
	rowA := b.mulC(sgM, l.t.TM*s.M)
	rowB := b.mulC(sgN, l.t.TN*s.N)
	out := f.Loop(b.c(steps), carried, func(kt spirv.ID, vals []spirv.ID) []spirv.ID {
		g.storeShared(vals[nAcc:])
		b.barrier()
		nextK := f.ExtInst(b.u32, b.glsl, spirv.GLSLUMin, b.addC(kt, 1), b.c(steps-1))
		next := g.loadGlobal(b.mulC(nextK, l.t.BK))
		acc := append([]spirv.ID(nil), vals[:nAcc]...)
		for kk := uint32(0); kk < l.t.BK/s.K; kk++ {
			col := kk * s.K * uint32(s.A.Bytes()) / 16
			as := make([]spirv.ID, l.t.TM)
			for i := range as {
				idx := b.addC(b.mulC(b.addC(rowA, uint32(i)*s.M), l.strideA), col)
				as[i] = f.MatrixLoad(matA, f.AccessChain(g.shPtr, g.aS, idx), spirv.RowMajor, b.c(l.strideA))
			}
			colB := kk * s.K * uint32(s.B.Bytes()) / 16
			for j := uint32(0); j < l.t.TN; j++ {
				idx := b.addC(b.mulC(b.addC(rowB, j*s.N), l.strideB), colB)
				bm := f.MatrixLoad(matB, f.AccessChain(g.shPtr, g.bS, idx), spirv.ColumnMajor, b.c(l.strideB))
				for i := uint32(0); i < l.t.TM; i++ {
					acc[i*l.t.TN+j] = f.MatrixMulAdd(matC, as[i], bm, acc[i*l.t.TN+j], ops)
				}
			}
		}
		b.barrier()
		return append(acc, next...)
	})
	for i := uint32(0); i < l.t.TM; i++ {
		row := b.add(g.m0, b.addC(rowA, i*s.M))
		for j := uint32(0); j < l.t.TN; j++ {
			col := b.add(g.n0, b.addC(rowB, j*s.N))
			ptr := b.elem(cPtr, cG, b.add(b.mulC(row, n), col))
			f.MatrixStore(ptr, out[i*l.t.TN+j], spirv.RowMajor, b.c(n))
		}
	}
	return b.finish(l.threads, 1, 1), nil
}

// loadGlobal reads this invocation's share of the A and B blocks at
// K offset k0 (elements) into 16-byte registers: A's first, then B's.
func (g *cmGen) loadGlobal(k0 spirv.ID) []spirv.ID {
	l, f := g.l, g.f
	var regs []spirv.ID
	load := func(v spirv.ID, base spirv.ID, loads, vecRow, bytes uint32) {
		rowVecs := g.k * bytes / 16
		kv := g.div(g.mulC(k0, bytes), g.c(16))
		for i := uint32(0); i < loads; i++ {
			idx := g.addC(g.lid, i*l.threads)
			r, c := g.div(idx, g.c(vecRow)), g.mod(idx, g.c(vecRow))
			gi := g.add(g.mulC(g.add(base, r), rowVecs), g.add(kv, c))
			regs = append(regs, f.Load(g.uvec4, g.elem(g.gPtr, v, gi)))
		}
	}
	load(g.aG, g.m0, l.loadsA, l.vecRowA, uint32(l.s.A.Bytes()))
	load(g.bG, g.n0, l.loadsB, l.vecRowB, uint32(l.s.B.Bytes()))
	return regs
}

// storeShared writes the registers from loadGlobal into the shared blocks.
func (g *cmGen) storeShared(regs []spirv.ID) {
	l, f := g.l, g.f
	store := func(v spirv.ID, regs []spirv.ID, vecRow, stride uint32) {
		for i, reg := range regs {
			idx := g.addC(g.lid, uint32(i)*l.threads)
			r, c := g.div(idx, g.c(vecRow)), g.mod(idx, g.c(vecRow))
			f.Store(f.AccessChain(g.shPtr, v, g.add(g.mulC(r, stride), c)), reg)
		}
	}
	store(g.aS, regs[:l.loadsA], l.vecRowA, l.strideA)
	store(g.bS, regs[l.loadsA:], l.vecRowB, l.strideB)
}

package coopmat

import (
	"fmt"

	"github.com/everycycle/appraise/coopmat/spirv"
	"github.com/everycycle/appraise/coopmat/vk"
)

// cmGen carries the IDs shared by the pieces of the cooperative-matrix GEMM.
type cmGen struct {
	*vk.Builder
	l                  cmLayout
	m, n, k            uint32
	steps              uint32 // K steps of BK
	uvec4, shPtr, gPtr spirv.ID
	shElem             spirv.ID // element type of the shared arrays (l.unit bytes)
	aG, bG, aS, bS     spirv.ID // global and shared variables
	cG, cPtr           spirv.ID // result variable and element pointer type
	m0, n0             spirv.ID // first row and column of the workgroup's block
	rowA, colB         spirv.ID // the subgroup's first row and column in the block
	tC                 spirv.ID // result component type
	matA, matB, matC   spirv.ID // cooperative-matrix types
	baseA, baseB       spirv.ID // shared element index of the subgroup's first A row, B column
	stA, stB           stager   // this invocation's share of the staging
	ops                spirv.MatrixOperands
	wgScope            spirv.ID // the Workgroup scope constant
}

// stager is one invocation's part in staging one operand: a first global
// vector index (at K step 0) and a first shared vector index; load i adds
// constant multiples of dRow rows to both.
type stager struct {
	global, shared spirv.ID
	loads, dRow    uint32 // vectors per step, rows between two loads
	rowVecs        uint32 // vectors per row of the operand in global memory
	stride, stage  uint32 // shared row stride and buffer size, in vectors
	stepVecs       uint32 // global vectors one K step advances by
}

// buildCoopGEMM emits Result(m×n) = A(m×k)·B(k×n) with A row-major, B
// column-major (n rows of k) or, with BRowMajor, row-major (k rows of n),
// and the result row-major; bindings A=0, B=1, C=2. Dispatch (n/BN, m/BM, 1)
// workgroups.
func buildCoopGEMM(version uint32, l cmLayout, m, n, k uint32) ([]uint32, error) {
	if l.t.Unroll > 1 && version < spirv.Version15 {
		return nil, fmt.Errorf("tile %v: a partial unroll count needs SPIR-V 1.4, not %#x", l.t, version)
	}
	g, err := newCmGen(version, l, m, n, k)
	if err != nil {
		return nil, err
	}
	var acc []spirv.ID
	if l.t.stages() == 2 {
		acc = g.loopDouble()
	} else {
		acc = g.loopSingle()
	}
	g.storeC(acc)
	return g.Finish(l.threads, 1, 1), nil
}

func newCmGen(version uint32, l cmLayout, m, n, k uint32) (*cmGen, error) {
	b := vk.NewBuilder(version)
	mod, s := b.M, l.s
	mod.AddCapability(spirv.CapabilityGroupNonUniform)
	g := &cmGen{Builder: b, l: l, m: m, n: n, k: k, steps: k / l.t.BK, ops: matrixOperands(s)}
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
	if s.Result == vk.Float16 {
		mod.AddCapability(spirv.CapabilityStorageBuffer16BitAccess)
	}
	// Cooperative-matrix modules use the Vulkan memory model
	// (SPV_KHR_cooperative_matrix requires it alongside Shader): staging
	// stores are made available to the workgroup, fragment loads from
	// shared memory made visible, and the global loads stay private.
	vulkanMemoryModel(mod, version, spirv.AddressingLogical)
	g.wgScope = b.C(uint32(spirv.ScopeWorkgroup))
	g.uvec4 = mod.TypeVector(b.U32, 4)
	if l.t.Addressed {
		g.addressInputs()
		b.Binding = 2 // A and B keep their bindings in the layout, unused
	} else {
		g.aG, g.gPtr = b.Storage(g.uvec4, 16)
		g.bG, _ = b.Storage(g.uvec4, 16)
	}
	if l.t.ReadOnly {
		mod.Decorate(g.aG, spirv.DecorationNonWritable)
		mod.Decorate(g.bG, spirv.DecorationNonWritable)
	}
	g.tC = tC
	g.cG, g.cPtr = b.Storage(tC, uint32(s.Result.Bytes()))
	g.shElem = g.uvec4
	if q := l.perVec(); q > 1 {
		g.shElem = mod.TypeVector(b.U32, 4/q)
		if q == 4 {
			g.shElem = b.U32
		}
	}
	g.aS, g.shPtr = b.Shared(g.shElem, l.t.stages()*l.stageA()*l.perVec())
	g.bS, _ = b.Shared(g.shElem, l.t.stages()*l.stageB()*l.perVec())
	scope := spirv.Scope(s.Scope)
	g.matA = mod.TypeCooperativeMatrix(tA, scope, s.M, s.K, spirv.MatrixA)
	g.matB = mod.TypeCooperativeMatrix(tB, scope, s.K, s.N, spirv.MatrixB)
	g.matC = mod.TypeCooperativeMatrix(tC, scope, s.M, s.N, spirv.MatrixAccumulator)
	g.setup()
	return g, nil
}

// vulkanMemoryModel declares the Vulkan memory model with addressing a
// (the capability, and below SPIR-V 1.5 the extension).
func vulkanMemoryModel(m *spirv.Module, version uint32, a spirv.AddressingModel) {
	m.AddCapability(spirv.CapabilityVulkanMemoryModel)
	if version < spirv.Version15 {
		m.AddExtension("SPV_KHR_vulkan_memory_model")
	}
	m.SetMemoryModel(a, spirv.MemoryModelVulkan)
}

// addressInputs declares A and B as physical storage buffers whose 64-bit
// addresses arrive in a push-constant block {A, B} and loads the two
// pointers (aG, bG; gPtr becomes a pointer to one of their vectors).
func (g *cmGen) addressInputs() {
	mod, f := g.Builder.M, g.F
	mod.AddCapability(spirv.CapabilityPhysicalStorageBufferAddresses)
	if g.Version < spirv.Version15 {
		mod.AddExtension("SPV_KHR_physical_storage_buffer")
	}
	vulkanMemoryModel(mod, g.Version, spirv.AddressingPhysicalStorageBuffer64)
	block := mod.TypeStorageBlock(mod.TypeRuntimeArray(g.uvec4, 16))
	ptr := mod.TypePointer(spirv.StoragePhysicalStorageBuffer, block)
	pc := mod.TypeBlock([]spirv.ID{ptr, ptr}, []uint32{0, 8})
	v := mod.Variable(mod.TypePointer(spirv.StoragePushConstant, pc), spirv.StoragePushConstant)
	g.Global(v, spirv.StoragePushConstant)
	member := mod.TypePointer(spirv.StoragePushConstant, ptr)
	g.aG = f.Load(ptr, f.AccessChain(member, v, g.C(0)))
	g.bG = f.Load(ptr, f.AccessChain(member, v, g.C(1)))
	g.gPtr = mod.TypePointer(spirv.StoragePhysicalStorageBuffer, g.uvec4)
}

// setup computes the workgroup's and subgroup's positions and this
// invocation's staging indices.
func (g *cmGen) setup() {
	l, s := g.l, g.l.s
	lid := g.Builtin(spirv.BuiltInLocalInvocationIndex, true)
	sg := g.Builtin(spirv.BuiltInSubgroupID, true)
	wgx, wgy := g.BuiltinVec(spirv.BuiltInWorkgroupID)
	g.m0, g.n0 = g.MulC(wgy, l.bm), g.MulC(wgx, l.bn)
	sgM, sgN := g.Div(sg, g.C(l.t.WN)), g.Mod(sg, g.C(l.t.WN))
	ab, bb := uint32(s.A.Bytes()), uint32(s.B.Bytes())
	g.rowA, g.colB = g.MulC(sgM, l.t.TM*s.M), g.MulC(sgN, l.t.TN*s.N)
	g.baseA = g.MulC(g.rowA, l.strideA*l.perVec())
	g.stA = g.newStager(lid, g.m0, g.C(0), l.vecRowA, l.loadsA, g.k*ab/16, l.strideA, l.stageA(), l.vecRowA)
	if l.t.BRowMajor {
		g.baseB = g.MulC(sgN, l.t.TN*s.N*bb/l.unit)
		rowVecs := g.n * bb / 16
		g.stB = g.newStager(lid, g.C(0), g.Div(g.MulC(g.n0, bb), g.C(16)), l.vecRowB, l.loadsB, rowVecs, l.strideB, l.stageB(), l.t.BK*rowVecs)
	} else {
		g.baseB = g.MulC(g.colB, l.strideB*l.perVec())
		g.stB = g.newStager(lid, g.n0, g.C(0), l.vecRowB, l.loadsB, g.k*bb/16, l.strideB, l.stageB(), l.vecRowB)
	}
}

// newStager places invocation lid in the staging of an operand whose block
// starts at global row row0 and vector column col0 (at K step 0).
func (g *cmGen) newStager(lid, row0, col0 spirv.ID, vecRow, loads, rowVecs, stride, stage, stepVecs uint32) stager {
	r, c := g.Div(lid, g.C(vecRow)), g.Mod(lid, g.C(vecRow))
	st := stager{loads: loads, dRow: g.l.threads / vecRow, rowVecs: rowVecs, stride: stride, stage: stage, stepVecs: stepVecs}
	st.global = g.Add(g.MulC(g.Add(row0, r), rowVecs), g.Add(col0, c))
	st.shared = g.Add(g.MulC(r, stride), c)
	return st
}

// loopSingle is the one-buffer main loop: store the registers of this step,
// barrier, load the step Prefetch steps ahead, multiply, barrier (with
// EarlyLoad the loads go before the first barrier; with TopBarrier the
// second barrier opens the next step instead, before its stores). With
// Vars the accumulators and the registers live in Function variables,
// loaded and stored each step, instead of loop-carried values.
func (g *cmGen) loopSingle() []spirv.ID {
	l, f := g.l, g.F
	nAcc := int(l.t.TM * l.t.TN)
	ahead := l.t.prefetch()
	// regs holds the data of steps 0…ahead-1, one step after another.
	var regs []spirv.ID
	for i := range ahead {
		regs = append(regs, g.loadGlobal(g.C(min(i, g.steps-1)))...)
	}
	init := make([]spirv.Carried, 0, nAcc+len(regs))
	for range nAcc {
		init = append(init, spirv.Carried{Type: g.matC, Init: g.zeroAcc()})
	}
	for _, r := range regs {
		init = append(init, spirv.Carried{Type: g.uvec4, Init: r})
	}
	per := len(regs) / int(ahead)
	step := func(kt spirv.ID, vals []spirv.ID) []spirv.ID {
		held := vals[nAcc:]
		if l.t.TopBarrier {
			g.Barrier()
		}
		g.storeShared(held[:per], 0)
		var next []spirv.ID
		if l.t.EarlyLoad {
			next = g.loadAhead(kt, ahead, held[:per])
		}
		g.Barrier()
		if !l.t.EarlyLoad {
			next = g.loadAhead(kt, ahead, held[:per])
		}
		acc := g.multiply(vals[:nAcc], 0)
		if !l.t.TopBarrier {
			g.Barrier()
		}
		return append(append(acc, held[per:]...), next...)
	}
	control, params := g.loopControl()
	if !l.t.Vars {
		return f.LoopWith(control, params, g.C(g.steps), init, step)[:nAcc]
	}
	mod := g.Builder.M
	vars := make([]spirv.ID, len(init))
	for i, c := range init {
		vars[i] = f.Var(mod.TypePointer(spirv.StorageFunction, c.Type))
		f.Store(vars[i], c.Init)
	}
	load := func() []spirv.ID {
		out := make([]spirv.ID, len(vars))
		for i, v := range vars {
			out[i] = f.Load(init[i].Type, v)
		}
		return out
	}
	f.LoopWith(control, params, g.C(g.steps), nil, func(kt spirv.ID, _ []spirv.ID) []spirv.ID {
		for i, v := range step(kt, load()) {
			f.Store(vars[i], v)
		}
		return nil
	})
	return load()[:nAcc]
}

// loopControl is the main loop's hint: DontUnroll with NoUnroll, a partial
// count with Unroll, else none.
func (g *cmGen) loopControl() (spirv.LoopControl, []uint32) {
	switch {
	case g.l.t.NoUnroll:
		return spirv.LoopControlDontUnroll, nil
	case g.l.t.Unroll > 1:
		return spirv.LoopControlPartialCount, []uint32{g.l.t.Unroll}
	}
	return spirv.LoopControlNone, nil
}

// loopDouble is the two-buffer main loop, unrolled by two so that buffer
// offsets are constants: prefetch step kt+1 into registers, multiply from
// buffer kt%2, store the registers to the other buffer, one barrier.
func (g *cmGen) loopDouble() []spirv.ID {
	l, f := g.l, g.F
	nAcc := int(l.t.TM * l.t.TN)
	g.storeShared(g.loadGlobal(g.C(0)), 0)
	g.Barrier()
	carried := make([]spirv.Carried, nAcc)
	for i := range carried {
		carried[i] = spirv.Carried{Type: g.matC, Init: g.zeroAcc()}
	}
	control, params := g.loopControl()
	return f.LoopWith(control, params, g.C(g.steps/2), carried, func(j spirv.ID, acc []spirv.ID) []spirv.ID {
		for h := uint32(0); h < 2; h++ {
			kt := g.AddC(g.MulC(j, 2), h)
			next := g.loadGlobal(g.stepAhead(kt, 1))
			acc = g.multiply(acc, h)
			g.storeShared(next, 1-h)
			g.Barrier()
		}
		return acc
	})
}

func (g *cmGen) zeroAcc() spirv.ID {
	mod := g.Builder.M
	return mod.ConstComposite(g.matC, zeroOf(mod, g.l.s.Result, g.tC))
}

// loadAhead loads the data of step kt+ahead. Unguarded, the last steps
// reload the last step's data (stepAhead); with Guard they load nothing and
// yield spare (values of the same types, never stored).
func (g *cmGen) loadAhead(kt spirv.ID, ahead uint32, spare []spirv.ID) []spirv.ID {
	if !g.l.t.Guard {
		return g.loadGlobal(g.stepAhead(kt, ahead))
	}
	step := g.AddC(kt, ahead)
	types := make([]spirv.ID, len(spare))
	for i := range types {
		types[i] = g.uvec4
	}
	return g.F.If(g.F.Binary(spirv.OpULessThan, g.BoolT, step, g.C(g.steps)), types, spare,
		func() []spirv.ID { return g.loadGlobal(step) })
}

// stepAhead is min(kt+ahead, steps-1): the last steps reload the last
// step's data, which is never stored. With Pad the step is not clamped:
// the operands carry padding for the steps past the end (padBytes).
func (g *cmGen) stepAhead(kt spirv.ID, ahead uint32) spirv.ID {
	if g.l.t.Pad {
		return g.AddC(kt, ahead)
	}
	return g.F.ExtInst(g.U32, g.Glsl, spirv.GLSLUMin, g.AddC(kt, ahead), g.C(g.steps-1))
}

// multiply runs one K step on the shared buffer stage: for each K slice,
// TM fragments of A, then each of TN fragments of B against all of them.
// Offsets and strides count shared elements (l.unit bytes, q per vector).
func (g *cmGen) multiply(acc []spirv.ID, stage uint32) []spirv.ID {
	l, f, s := g.l, g.F, g.l.s
	acc = append([]spirv.ID(nil), acc...)
	ab, bb, q := uint32(s.A.Bytes()), uint32(s.B.Bytes()), l.perVec()
	for kk := uint32(0); kk < l.t.BK/s.K; kk++ {
		as := make([]spirv.ID, l.t.TM)
		for i := range as {
			off := (stage*l.stageA()+uint32(i)*s.M*l.strideA)*q + kk*s.K*ab/l.unit
			as[i] = g.loadFragment(g.matA, g.aS, g.AddC(g.baseA, off), spirv.RowMajor, l.strideA*q)
		}
		for j := uint32(0); j < l.t.TN; j++ {
			off, layout := (stage*l.stageB()+j*s.N*l.strideB)*q+kk*s.K*bb/l.unit, spirv.ColumnMajor
			if l.t.BRowMajor {
				off, layout = (stage*l.stageB()+kk*s.K*l.strideB)*q+j*s.N*bb/l.unit, spirv.RowMajor
			}
			bm := g.loadFragment(g.matB, g.bS, g.AddC(g.baseB, off), layout, l.strideB*q)
			for i := uint32(0); i < l.t.TM; i++ {
				acc[i*l.t.TN+j] = f.MatrixMulAdd(g.matC, as[i], bm, acc[i*l.t.TN+j], g.ops)
			}
		}
	}
	return acc
}

// loadFragment loads a matrix fragment of type typ from shared element idx
// of v, made visible to the workgroup (the staging stores made it
// available; the barrier between orders them).
func (g *cmGen) loadFragment(typ, v, idx spirv.ID, layout spirv.MatrixLayout, stride uint32) spirv.ID {
	return g.F.MatrixLoadWith(typ, g.F.AccessChain(g.shPtr, v, idx), layout, g.C(stride),
		spirv.MemoryAccessMakePointerVisible|spirv.MemoryAccessNonPrivatePointer, uint32(g.wgScope))
}

// storeC writes the accumulators to the row-major result.
func (g *cmGen) storeC(acc []spirv.ID) {
	l, f, s := g.l, g.F, g.l.s
	for i := uint32(0); i < l.t.TM; i++ {
		row := g.Add(g.m0, g.AddC(g.rowA, i*s.M))
		for j := uint32(0); j < l.t.TN; j++ {
			col := g.Add(g.n0, g.AddC(g.colB, j*s.N))
			ptr := g.Elem(g.cPtr, g.cG, g.Add(g.MulC(row, g.n), col))
			f.MatrixStore(ptr, acc[i*l.t.TN+j], spirv.RowMajor, g.C(g.n))
		}
	}
}

// loadGlobal reads this invocation's share of the A and B blocks at K step
// kt into 16-byte registers: A's first, then B's.
func (g *cmGen) loadGlobal(kt spirv.ID) []spirv.ID {
	var regs []spirv.ID
	for _, st := range []struct {
		v  spirv.ID
		st stager
	}{{g.aG, g.stA}, {g.bG, g.stB}} {
		base := g.Add(st.st.global, g.MulC(kt, st.st.stepVecs))
		for i := uint32(0); i < st.st.loads; i++ {
			idx := g.AddC(base, i*st.st.dRow*st.st.rowVecs)
			ptr := g.Elem(g.gPtr, st.v, idx)
			if g.l.t.Addressed {
				regs = append(regs, g.F.LoadAligned(g.uvec4, ptr, 16))
			} else {
				regs = append(regs, g.F.Load(g.uvec4, ptr))
			}
		}
	}
	return regs
}

// storeShared writes the registers from loadGlobal into shared buffer
// stage: each 16-byte register whole, or in q parts where the shared
// arrays hold smaller elements.
func (g *cmGen) storeShared(regs []spirv.ID, stage uint32) {
	f, q := g.F, g.l.perVec()
	put := func(v, idx, val spirv.ID) {
		f.StoreWith(f.AccessChain(g.shPtr, v, idx), val,
			spirv.MemoryAccessMakePointerAvailable|spirv.MemoryAccessNonPrivatePointer, uint32(g.wgScope))
	}
	store := func(v spirv.ID, regs []spirv.ID, st stager) {
		for i, reg := range regs {
			idx := g.AddC(st.shared, stage*st.stage+uint32(i)*st.dRow*st.stride)
			if q == 1 {
				put(v, idx, reg)
				continue
			}
			first := g.MulC(idx, q)
			for p := range q {
				put(v, g.AddC(first, p), g.vecPart(reg, p, q))
			}
		}
	}
	store(g.aS, regs[:g.l.loadsA], g.stA)
	store(g.bS, regs[g.l.loadsA:], g.stB)
}

// vecPart is part p of q of a 16-byte register: a 2-word vector (q = 2)
// or one word (q = 4).
func (g *cmGen) vecPart(reg spirv.ID, p, q uint32) spirv.ID {
	n := 4 / q
	if n == 1 {
		return g.F.Extract(g.U32, reg, p)
	}
	words := make([]spirv.ID, n)
	for i := range words {
		words[i] = g.F.Extract(g.U32, reg, p*n+uint32(i))
	}
	return g.F.Composite(g.shElem, words...)
}

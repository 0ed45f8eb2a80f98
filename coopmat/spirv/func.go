package spirv

// Func is a function body under construction. Function-scope variables are
// collected apart and placed at the top of the first block, as SPIR-V requires.
type Func struct {
	m     *Module
	id    ID
	head  []uint32
	vars  []uint32
	body  []uint32
	block ID
}

// BeginFunction opens a function returning ret with type fnType and opens its
// first block.
func (m *Module) BeginFunction(ret, fnType ID) *Func {
	f := &Func{m: m, id: m.AllocID()}
	f.head = inst(OpFunction, uint32(ret), uint32(f.id), 0, uint32(fnType))
	entry := m.AllocID()
	f.head = append(f.head, inst(OpLabel, uint32(entry))...)
	f.block = entry
	return f
}

// ID is the function's result ID (for OpEntryPoint).
func (f *Func) ID() ID { return f.id }

// End closes the function and appends it to the module.
func (f *Func) End() {
	f.m.functions = append(f.m.functions, f.head...)
	f.m.functions = append(f.m.functions, f.vars...)
	f.m.functions = append(f.m.functions, f.body...)
	f.m.functions = append(f.m.functions, inst(OpFunctionEnd)...)
}

// Var declares a Function-storage variable whose pointer type is ptr.
func (f *Func) Var(ptr ID) ID {
	id := f.m.AllocID()
	f.vars = append(f.vars, inst(OpVariable, uint32(ptr), uint32(id), uint32(StorageFunction))...)
	return id
}

// Value emits an instruction with a result type and returns its new result ID.
func (f *Func) Value(op Op, typ ID, operands ...uint32) ID {
	id := f.m.AllocID()
	f.body = append(f.body, inst(op, append([]uint32{uint32(typ), uint32(id)}, operands...)...)...)
	return id
}

// Void emits an instruction that has no result.
func (f *Func) Void(op Op, operands ...uint32) {
	f.body = append(f.body, inst(op, operands...)...)
}

// Label starts the block with the given label (allocated by AllocID).
func (f *Func) Label(id ID) {
	f.Void(OpLabel, uint32(id))
	f.block = id
}

// Binary emits a two-operand arithmetic or comparison instruction.
func (f *Func) Binary(op Op, typ, a, b ID) ID { return f.Value(op, typ, uint32(a), uint32(b)) }

// Load reads through pointer ptr a value of type typ.
func (f *Func) Load(typ, ptr ID) ID { return f.Value(OpLoad, typ, uint32(ptr)) }

// LoadAligned reads through ptr with the Aligned memory operand: the
// pointer is a multiple of align bytes (a power of two).
func (f *Func) LoadAligned(typ, ptr ID, align uint32) ID {
	return f.Value(OpLoad, typ, uint32(ptr), uint32(MemoryAccessAligned), align)
}

// Store writes v through pointer ptr.
func (f *Func) Store(ptr, v ID) { f.Void(OpStore, uint32(ptr), uint32(v)) }

// StoreWith writes v through ptr with memory operands: the access mask,
// then its literals and <id>s in the order the mask's bits require.
func (f *Func) StoreWith(ptr, v ID, access MemoryAccess, params ...uint32) {
	f.Void(OpStore, append([]uint32{uint32(ptr), uint32(v), uint32(access)}, params...)...)
}

// AccessChain returns a pointer of type ptrType into base by indexes.
func (f *Func) AccessChain(ptrType, base ID, indexes ...ID) ID {
	return f.Value(OpAccessChain, ptrType, append([]uint32{uint32(base)}, ids(indexes)...)...)
}

// ExtInst calls instruction number n of the imported set.
func (f *Func) ExtInst(typ, set ID, n uint32, args ...ID) ID {
	return f.Value(OpExtInst, typ, append([]uint32{uint32(set), n}, ids(args)...)...)
}

// Composite builds a composite of type typ from parts.
func (f *Func) Composite(typ ID, parts ...ID) ID {
	return f.Value(OpCompositeConstruct, typ, ids(parts)...)
}

// Extract reads component index of composite v.
func (f *Func) Extract(typ, v ID, index uint32) ID {
	return f.Value(OpCompositeExtract, typ, uint32(v), index)
}

// Branch ends the current block with an unconditional branch.
func (f *Func) Branch(target ID) { f.Void(OpBranch, uint32(target)) }

// BranchConditional ends the current block with a two-way branch.
func (f *Func) BranchConditional(cond, t, e ID) {
	f.Void(OpBranchConditional, uint32(cond), uint32(t), uint32(e))
}

// If emits a selection that runs then only when cond holds and returns,
// for each of types, the value then produced or, when cond fails, the one
// from otherwise (phis in the merge block).
func (f *Func) If(cond ID, types, otherwise []ID, then func() []ID) []ID {
	m := f.m
	pre, thenL, merge := f.block, m.AllocID(), m.AllocID()
	f.Void(OpSelectionMerge, uint32(merge), 0)
	f.BranchConditional(cond, thenL, merge)
	f.Label(thenL)
	got := then()
	end := f.block
	f.Branch(merge)
	f.Label(merge)
	out := make([]ID, len(types))
	for i, t := range types {
		out[i] = f.Phi(t, got[i], end, otherwise[i], pre)
	}
	return out
}

// LoopMergeWith is LoopMerge with a loop-control hint and its literals.
func (f *Func) LoopMergeWith(merge, cont ID, control LoopControl, params ...uint32) {
	f.Void(OpLoopMerge, append([]uint32{uint32(merge), uint32(cont), uint32(control)}, params...)...)
}

// Phi emits a phi of type typ; pairs alternates value and parent block IDs.
func (f *Func) Phi(typ ID, pairs ...ID) ID { return f.Value(OpPhi, typ, ids(pairs)...) }

// PhiAt emits a phi whose operands are filled in later by SetPhi, for loop
// headers whose back-edge values are not yet known. It returns the result ID
// and the body offset of the placeholder operands.
func (f *Func) PhiAt(typ, init, initBlock ID) (ID, int) {
	id := f.Value(OpPhi, typ, uint32(init), uint32(initBlock), 0, 0)
	return id, len(f.body) - 2
}

// SetPhi fills the back-edge operands of a phi made by PhiAt.
func (f *Func) SetPhi(at int, v, block ID) {
	f.body[at] = uint32(v)
	f.body[at+1] = uint32(block)
}

// Return ends the current block with OpReturn.
func (f *Func) Return() { f.Void(OpReturn) }

// ControlBarrier emits OpControlBarrier with constant scope and semantics IDs.
func (f *Func) ControlBarrier(exec, mem Scope, sem MemorySemantics) {
	m := f.m
	f.Void(OpControlBarrier, uint32(m.ConstUint32(uint32(exec))), uint32(m.ConstUint32(uint32(mem))), uint32(m.ConstUint32(uint32(sem))))
}

// MatrixLoadWith is MatrixLoad with memory operands (see StoreWith).
func (f *Func) MatrixLoadWith(typ, ptr ID, layout MatrixLayout, stride ID, access MemoryAccess, params ...uint32) ID {
	return f.Value(OpCooperativeMatrixLoadKHR, typ, append([]uint32{uint32(ptr), uint32(f.m.ConstUint32(uint32(layout))),
		uint32(stride), uint32(access)}, params...)...)
}

// MatrixStore emits OpCooperativeMatrixStoreKHR.
func (f *Func) MatrixStore(ptr, v ID, layout MatrixLayout, stride ID) {
	f.Void(OpCooperativeMatrixStoreKHR, uint32(ptr), uint32(v), uint32(f.m.ConstUint32(uint32(layout))), uint32(stride))
}

// MatrixMulAdd emits OpCooperativeMatrixMulAddKHR (a*b + c); operands may be
// zero to omit the mask.
func (f *Func) MatrixMulAdd(typ, a, b, c ID, operands MatrixOperands) ID {
	if operands == 0 {
		return f.Value(OpCooperativeMatrixMulAddKHR, typ, uint32(a), uint32(b), uint32(c))
	}
	return f.Value(OpCooperativeMatrixMulAddKHR, typ, uint32(a), uint32(b), uint32(c), uint32(operands))
}

// DotPacked emits OpSDot or OpUDot (op) of two 32-bit integers a and b read
// as four packed 8-bit components (PackedVectorFormat4x8Bit), with result
// type typ. It declares the DotProduct and DotProductInput4x8BitPacked
// capabilities, and below SPIR-V 1.6 (which made it core) the
// SPV_KHR_integer_dot_product extension.
func (f *Func) DotPacked(op Op, typ, a, b ID) ID {
	m := f.m
	m.AddCapability(CapabilityDotProduct)
	m.AddCapability(CapabilityDotProductInput4x8BitPacked)
	if m.version < Version16 {
		m.AddExtension("SPV_KHR_integer_dot_product")
	}
	return f.Value(op, typ, uint32(a), uint32(b), uint32(PackedVectorFormat4x8Bit))
}

// Carried is a value carried around a loop: its type and its value on entry.
type Carried struct {
	Type, Init ID
}

// Loop emits the structured loop `for i := 0; i < n; i++` where n is a 32-bit
// unsigned <id>. Each carried value becomes a phi in the loop header; body
// receives the counter and the current values and returns the values for the
// next iteration (same length and order). Loop returns the values on exit.
// body may open blocks of its own; it must leave a block open for the
// continue branch.
func (f *Func) Loop(n ID, carried []Carried, body func(i ID, vals []ID) []ID) []ID {
	return f.LoopWith(LoopControlNone, nil, n, carried, body)
}

// LoopWith is Loop with a loop-control hint for the driver's compiler and
// the hint's literals (PartialCount takes the count; SPIR-V 1.4 or later).
func (f *Func) LoopWith(control LoopControl, params []uint32, n ID, carried []Carried, body func(i ID, vals []ID) []ID) []ID {
	m := f.m
	u32 := m.TypeInt(32, false)
	pre := f.block
	header, bodyL, cont, merge := m.AllocID(), m.AllocID(), m.AllocID(), m.AllocID()
	f.Branch(header)
	f.Label(header)
	i, iAt := f.PhiAt(u32, m.ConstUint32(0), pre)
	vals := make([]ID, len(carried))
	at := make([]int, len(carried))
	for k, c := range carried {
		vals[k], at[k] = f.PhiAt(c.Type, c.Init, pre)
	}
	cond := f.Binary(OpULessThan, m.TypeBool(), i, n)
	f.LoopMergeWith(merge, cont, control, params...)
	f.BranchConditional(cond, bodyL, merge)
	f.Label(bodyL)
	next := body(i, vals)
	f.Branch(cont)
	f.Label(cont)
	inext := f.Binary(OpIAdd, u32, i, m.ConstUint32(1))
	f.Branch(header)
	f.SetPhi(iAt, inext, cont)
	for k := range carried {
		f.SetPhi(at[k], next[k], cont)
	}
	f.Label(merge)
	return vals
}

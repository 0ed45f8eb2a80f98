package spirv

// Func is a function body under construction.
type Func struct {
	m     *Module
	id    ID
	head  []uint32
	vars  []uint32
	body  []uint32
	block ID
}

// BeginFunction opens a function of type fnType and its first block.
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

// Var declares a Function variable of pointer type ptr atop the first block.
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

// LoadAligned is Load through a pointer aligned to align bytes (a power of two).
func (f *Func) LoadAligned(typ, ptr ID, align uint32) ID {
	return f.Value(OpLoad, typ, uint32(ptr), uint32(MemoryAccessAligned), align)
}

// Store writes v through pointer ptr.
func (f *Func) Store(ptr, v ID) { f.Void(OpStore, uint32(ptr), uint32(v)) }

// StoreWith is Store with memory operands: the mask, then its parameters in bit order.
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

func (f *Func) branch(target ID) { f.Void(OpBranch, uint32(target)) }

func (f *Func) branchIf(cond, t, e ID) {
	f.Void(OpBranchConditional, uint32(cond), uint32(t), uint32(e))
}

// If runs then when cond holds; it returns then's values, else otherwise's.
func (f *Func) If(cond ID, types, otherwise []ID, then func() []ID) []ID {
	m := f.m
	pre, thenL, merge := f.block, m.AllocID(), m.AllocID()
	f.Void(OpSelectionMerge, uint32(merge), 0)
	f.branchIf(cond, thenL, merge)
	f.Label(thenL)
	got := then()
	end := f.block
	f.branch(merge)
	f.Label(merge)
	out := make([]ID, len(types))
	for i, t := range types {
		out[i] = f.phi(t, got[i], end, otherwise[i], pre)
	}
	return out
}

func (f *Func) loopMerge(merge, cont ID, control LoopControl, params ...uint32) {
	f.Void(OpLoopMerge, append([]uint32{uint32(merge), uint32(cont), uint32(control)}, params...)...)
}

func (f *Func) phi(typ ID, pairs ...ID) ID { return f.Value(OpPhi, typ, ids(pairs)...) }

// phiAt emits a phi whose back-edge operands setPhi fills in at the returned offset.
func (f *Func) phiAt(typ, init, initBlock ID) (ID, int) {
	id := f.Value(OpPhi, typ, uint32(init), uint32(initBlock), 0, 0)
	return id, len(f.body) - 2
}

func (f *Func) setPhi(at int, v, block ID) {
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

// MatrixLoadWith loads a cooperative matrix; stride counts ptr's elements.
func (f *Func) MatrixLoadWith(typ, ptr ID, layout MatrixLayout, stride ID, access MemoryAccess, params ...uint32) ID {
	return f.Value(OpCooperativeMatrixLoadKHR, typ, append([]uint32{uint32(ptr), uint32(f.m.ConstUint32(uint32(layout))),
		uint32(stride), uint32(access)}, params...)...)
}

// MatrixStore emits OpCooperativeMatrixStoreKHR.
func (f *Func) MatrixStore(ptr, v ID, layout MatrixLayout, stride ID) {
	f.Void(OpCooperativeMatrixStoreKHR, uint32(ptr), uint32(v), uint32(f.m.ConstUint32(uint32(layout))), uint32(stride))
}

// MatrixMulAdd emits a*b + c; operands 0 omits the mask.
func (f *Func) MatrixMulAdd(typ, a, b, c ID, operands MatrixOperands) ID {
	if operands == 0 {
		return f.Value(OpCooperativeMatrixMulAddKHR, typ, uint32(a), uint32(b), uint32(c))
	}
	return f.Value(OpCooperativeMatrixMulAddKHR, typ, uint32(a), uint32(b), uint32(c), uint32(operands))
}

// DotPacked emits OpSDot or OpUDot of two packed 4×8-bit vectors, declaring what it needs.
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

// Loop emits `for i := 0; i < n; i++`: body maps i and the carried values
// to their next values, leaving a block open; Loop returns the exit values.
func (f *Func) Loop(n ID, carried []Carried, body func(i ID, vals []ID) []ID) []ID {
	return f.LoopWith(LoopControlNone, nil, n, carried, body)
}

// LoopWith is Loop with a loop-control hint and its literals.
func (f *Func) LoopWith(control LoopControl, params []uint32, n ID, carried []Carried, body func(i ID, vals []ID) []ID) []ID {
	m := f.m
	u32 := m.TypeInt(32, false)
	pre := f.block
	header, bodyL, cont, merge := m.AllocID(), m.AllocID(), m.AllocID(), m.AllocID()
	f.branch(header)
	f.Label(header)
	i, iAt := f.phiAt(u32, m.ConstUint32(0), pre)
	vals := make([]ID, len(carried))
	at := make([]int, len(carried))
	for k, c := range carried {
		vals[k], at[k] = f.phiAt(c.Type, c.Init, pre)
	}
	cond := f.Binary(OpULessThan, m.TypeBool(), i, n)
	f.loopMerge(merge, cont, control, params...)
	f.branchIf(cond, bodyL, merge)
	f.Label(bodyL)
	next := body(i, vals)
	f.branch(cont)
	f.Label(cont)
	inext := f.Binary(OpIAdd, u32, i, m.ConstUint32(1))
	f.branch(header)
	f.setPhi(iAt, inext, cont)
	for k := range carried {
		f.setPhi(at[k], next[k], cont)
	}
	f.Label(merge)
	return vals
}

package vk

import (
	"github.com/everycycle/appraise/coopmat/spirv"
)

// Builder holds what every kernel of ours shares: one compute entry point
// "main", storage buffers in set 0, the GLSL450 memory model, and
// shorthands for 32-bit unsigned arithmetic.
type Builder struct {
	M       *spirv.Module // being built
	F       *spirv.Func   // main
	Version uint32        // SPIR-V
	iface   []spirv.ID
	U32     spirv.ID // uint32
	BoolT   spirv.ID // bool
	Glsl    spirv.ID // the GLSL.std.450 instruction set
	Binding uint32   // the next binding Storage declares
}

// SpirvVersion picks the SPIR-V version for a device's Vulkan API version.
func SpirvVersion(api uint32) uint32 {
	switch {
	case api >= 1<<22|3<<12:
		return spirv.Version16
	case api >= 1<<22|2<<12:
		return spirv.Version15
	}
	return spirv.Version13
}

// NewBuilder starts a compute module of the given SPIR-V version.
func NewBuilder(version uint32) *Builder {
	m := spirv.New(version)
	m.AddCapability(spirv.CapabilityShader)
	m.SetMemoryModel(spirv.AddressingLogical, spirv.MemoryModelGLSL450)
	b := &Builder{M: m, Version: version, U32: m.TypeInt(32, false), BoolT: m.TypeBool()}
	b.Glsl = m.AddExtInstImport("GLSL.std.450")
	void := m.TypeVoid()
	b.F = m.BeginFunction(void, m.TypeFunction(void))
	return b
}

// Global adds a module-scope variable to the entry point's interface.
func (b *Builder) Global(v spirv.ID, sc spirv.StorageClass) {
	if sc == spirv.StorageInput || b.Version >= 0x00010400 {
		b.iface = append(b.iface, v)
	}
}

// Storage declares the next binding as a runtime array of elem, stride bytes
// apart, and returns it and the pointer type of one element.
func (b *Builder) Storage(elem spirv.ID, stride uint32) (v, elemPtr spirv.ID) {
	m := b.M
	block := m.TypeStorageBlock(m.TypeRuntimeArray(elem, stride))
	v = m.Variable(m.TypePointer(spirv.StorageStorageBuffer, block), spirv.StorageStorageBuffer)
	m.Decorate(v, spirv.DecorationDescriptorSet, 0)
	m.Decorate(v, spirv.DecorationBinding, b.Binding)
	b.Binding++
	b.Global(v, spirv.StorageStorageBuffer)
	return v, m.TypePointer(spirv.StorageStorageBuffer, elem)
}

// Shared declares a Workgroup array of n elem, as Storage.
func (b *Builder) Shared(elem spirv.ID, n uint32) (v, elemPtr spirv.ID) {
	m := b.M
	v = m.Variable(m.TypePointer(spirv.StorageWorkgroup, m.TypeArray(elem, n)), spirv.StorageWorkgroup)
	b.Global(v, spirv.StorageWorkgroup)
	return v, m.TypePointer(spirv.StorageWorkgroup, elem)
}

// Builtin loads component x of a uvec3 built-in, or a scalar built-in.
func (b *Builder) Builtin(bi spirv.BuiltIn, scalar bool) spirv.ID {
	m := b.M
	t := b.U32
	if !scalar {
		t = m.TypeVector(b.U32, 3)
	}
	v := m.Variable(m.TypePointer(spirv.StorageInput, t), spirv.StorageInput)
	m.Decorate(v, spirv.DecorationBuiltIn, uint32(bi))
	b.Global(v, spirv.StorageInput)
	val := b.F.Load(t, v)
	if scalar {
		return val
	}
	return b.F.Extract(b.U32, val, 0)
}

// BuiltinVec loads a uvec3 built-in and returns its x and y components.
func (b *Builder) BuiltinVec(bi spirv.BuiltIn) (x, y spirv.ID) {
	m := b.M
	t := m.TypeVector(b.U32, 3)
	v := m.Variable(m.TypePointer(spirv.StorageInput, t), spirv.StorageInput)
	m.Decorate(v, spirv.DecorationBuiltIn, uint32(bi))
	b.Global(v, spirv.StorageInput)
	val := b.F.Load(t, v)
	return b.F.Extract(b.U32, val, 0), b.F.Extract(b.U32, val, 1)
}

// C is the 32-bit unsigned constant v; Add, Mul, Div, Mod, And, Shl and
// their constant forms AddC, MulC emit 32-bit unsigned arithmetic.
func (b *Builder) C(v uint32) spirv.ID                { return b.M.ConstUint32(v) }
func (b *Builder) Add(x, y spirv.ID) spirv.ID         { return b.F.Binary(spirv.OpIAdd, b.U32, x, y) }
func (b *Builder) Mul(x, y spirv.ID) spirv.ID         { return b.F.Binary(spirv.OpIMul, b.U32, x, y) }
func (b *Builder) Div(x, y spirv.ID) spirv.ID         { return b.F.Binary(spirv.OpUDiv, b.U32, x, y) }
func (b *Builder) Mod(x, y spirv.ID) spirv.ID         { return b.F.Binary(spirv.OpUMod, b.U32, x, y) }
func (b *Builder) AddC(x spirv.ID, v uint32) spirv.ID { return b.Add(x, b.C(v)) }
func (b *Builder) And(x, y spirv.ID) spirv.ID         { return b.F.Binary(spirv.OpBitwiseAnd, b.U32, x, y) }
func (b *Builder) Shl(x spirv.ID, n uint32) spirv.ID {
	return b.F.Binary(spirv.OpShiftLeftLogical, b.U32, x, b.C(n))
}
func (b *Builder) MulC(x spirv.ID, v uint32) spirv.ID { return b.Mul(x, b.C(v)) }

// FNV-1a, 32-bit: the vector-ALU kernels fold their values into one word.
const (
	FnvBasis uint32 = 2166136261
	FnvPrime uint32 = 16777619
)

// Fnv folds w into the hash h on the host.
func Fnv(h, w uint32) uint32 { return (h ^ w) * FnvPrime }

// Fnv emits the fold of the 32-bit word w into the hash h.
func (b *Builder) Fnv(h, w spirv.ID) spirv.ID {
	return b.MulC(b.F.Binary(spirv.OpBitwiseXor, b.U32, h, w), FnvPrime)
}

// Elem returns a pointer to element idx of a runtime-array storage buffer.
func (b *Builder) Elem(ptr, v, idx spirv.ID) spirv.ID {
	return b.F.AccessChain(ptr, v, b.C(0), idx)
}

// Barrier is a workgroup execution and shared-memory barrier.
func (b *Builder) Barrier() {
	b.F.ControlBarrier(spirv.ScopeWorkgroup, spirv.ScopeWorkgroup,
		spirv.SemanticsAcquireRelease|spirv.SemanticsWorkgroupMemory)
}

// Finish closes main, declares it with workgroup size x, y, z and returns the words.
func (b *Builder) Finish(x, y, z uint32) []uint32 {
	b.F.Return()
	b.F.End()
	b.M.AddEntryPoint(spirv.ExecutionModelGLCompute, b.F.ID(), "main", b.iface...)
	b.M.AddExecutionMode(b.F.ID(), spirv.ExecutionModeLocalSize, x, y, z)
	b.M.AddName(b.F.ID(), "main")
	return b.M.Words()
}

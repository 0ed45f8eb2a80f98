package vulkan

import (
	"github.com/everycycle/appraise/internal/probe/vulkan/internal/spirv"
)

// builder holds what every kernel of ours shares: one compute entry point
// "main", storage buffers in set 0, GLSL450 memory model, and shorthands for
// 32-bit unsigned arithmetic.
type builder struct {
	m       *spirv.Module
	f       *spirv.Func
	version uint32
	iface   []spirv.ID
	u32     spirv.ID
	boolT   spirv.ID
	glsl    spirv.ID
	binding uint32
}

// spirvVersion picks the SPIR-V version for a device's Vulkan API version.
func spirvVersion(api uint32) uint32 {
	switch {
	case api >= 1<<22|3<<12:
		return spirv.Version16
	case api >= 1<<22|2<<12:
		return spirv.Version15
	}
	return spirv.Version13
}

func newBuilder(version uint32) *builder {
	m := spirv.New(version)
	m.AddCapability(spirv.CapabilityShader)
	m.SetMemoryModel(spirv.AddressingLogical, spirv.MemoryModelGLSL450)
	b := &builder{m: m, version: version, u32: m.TypeInt(32, false), boolT: m.TypeBool()}
	b.glsl = m.AddExtInstImport("GLSL.std.450")
	void := m.TypeVoid()
	b.f = m.BeginFunction(void, m.TypeFunction(void))
	return b
}

// global records a module-scope variable for the entry point's interface:
// Input variables always, every other one from SPIR-V 1.4 on.
func (b *builder) global(v spirv.ID, sc spirv.StorageClass) {
	if sc == spirv.StorageInput || b.version >= 0x00010400 {
		b.iface = append(b.iface, v)
	}
}

// storage declares the next storage-buffer binding as a runtime array of
// elem with the given byte stride; it returns the variable and the pointer
// type of one element.
func (b *builder) storage(elem spirv.ID, stride uint32) (v, elemPtr spirv.ID) {
	m := b.m
	block := m.TypeStorageBlock(m.TypeRuntimeArray(elem, stride))
	v = m.Variable(m.TypePointer(spirv.StorageStorageBuffer, block), spirv.StorageStorageBuffer)
	m.Decorate(v, spirv.DecorationDescriptorSet, 0)
	m.Decorate(v, spirv.DecorationBinding, b.binding)
	b.binding++
	b.global(v, spirv.StorageStorageBuffer)
	return v, m.TypePointer(spirv.StorageStorageBuffer, elem)
}

// shared declares a Workgroup array of n elem; it returns the variable and
// the pointer type of one element.
func (b *builder) shared(elem spirv.ID, n uint32) (v, elemPtr spirv.ID) {
	m := b.m
	v = m.Variable(m.TypePointer(spirv.StorageWorkgroup, m.TypeArray(elem, n)), spirv.StorageWorkgroup)
	b.global(v, spirv.StorageWorkgroup)
	return v, m.TypePointer(spirv.StorageWorkgroup, elem)
}

// builtinX loads component x of a uvec3 built-in (or the scalar built-in
// when scalar is set).
func (b *builder) builtin(bi spirv.BuiltIn, scalar bool) spirv.ID {
	m := b.m
	t := b.u32
	if !scalar {
		t = m.TypeVector(b.u32, 3)
	}
	v := m.Variable(m.TypePointer(spirv.StorageInput, t), spirv.StorageInput)
	m.Decorate(v, spirv.DecorationBuiltIn, uint32(bi))
	b.global(v, spirv.StorageInput)
	val := b.f.Load(t, v)
	if scalar {
		return val
	}
	return b.f.Extract(b.u32, val, 0)
}

// builtinVec loads a uvec3 built-in and returns its x and y components.
func (b *builder) builtinVec(bi spirv.BuiltIn) (x, y spirv.ID) {
	m := b.m
	t := m.TypeVector(b.u32, 3)
	v := m.Variable(m.TypePointer(spirv.StorageInput, t), spirv.StorageInput)
	m.Decorate(v, spirv.DecorationBuiltIn, uint32(bi))
	b.global(v, spirv.StorageInput)
	val := b.f.Load(t, v)
	return b.f.Extract(b.u32, val, 0), b.f.Extract(b.u32, val, 1)
}

func (b *builder) c(v uint32) spirv.ID                { return b.m.ConstUint32(v) }
func (b *builder) add(x, y spirv.ID) spirv.ID         { return b.f.Binary(spirv.OpIAdd, b.u32, x, y) }
func (b *builder) mul(x, y spirv.ID) spirv.ID         { return b.f.Binary(spirv.OpIMul, b.u32, x, y) }
func (b *builder) div(x, y spirv.ID) spirv.ID         { return b.f.Binary(spirv.OpUDiv, b.u32, x, y) }
func (b *builder) mod(x, y spirv.ID) spirv.ID         { return b.f.Binary(spirv.OpUMod, b.u32, x, y) }
func (b *builder) addC(x spirv.ID, v uint32) spirv.ID { return b.add(x, b.c(v)) }
func (b *builder) and(x, y spirv.ID) spirv.ID         { return b.f.Binary(spirv.OpBitwiseAnd, b.u32, x, y) }
func (b *builder) shl(x spirv.ID, n uint32) spirv.ID {
	return b.f.Binary(spirv.OpShiftLeftLogical, b.u32, x, b.c(n))
}
func (b *builder) mulC(x spirv.ID, v uint32) spirv.ID { return b.mul(x, b.c(v)) }

// FNV-1a, 32-bit: the vector-ALU kernels fold their final values into one
// output word with it. Each step is a bijection of the word folded in, so a
// change in any one value changes the output.
const (
	fnvBasis uint32 = 2166136261
	fnvPrime uint32 = 16777619
)

// fnv folds w into the hash h on the host.
func fnv(h, w uint32) uint32 { return (h ^ w) * fnvPrime }

// fnv emits the fold of the 32-bit word w into the hash h.
func (b *builder) fnv(h, w spirv.ID) spirv.ID {
	return b.mulC(b.f.Binary(spirv.OpBitwiseXor, b.u32, h, w), fnvPrime)
}

// elem returns a pointer to element idx of a runtime-array storage buffer.
func (b *builder) elem(ptr, v, idx spirv.ID) spirv.ID {
	return b.f.AccessChain(ptr, v, b.c(0), idx)
}

// barrier is a workgroup execution and shared-memory barrier.
func (b *builder) barrier() {
	b.f.ControlBarrier(spirv.ScopeWorkgroup, spirv.ScopeWorkgroup,
		spirv.SemanticsAcquireRelease|spirv.SemanticsWorkgroupMemory)
}

// finish closes main, declares the entry point with the workgroup size and
// returns the module's words.
func (b *builder) finish(x, y, z uint32) []uint32 {
	b.f.Return()
	b.f.End()
	b.m.AddEntryPoint(spirv.ExecutionModelGLCompute, b.f.ID(), "main", b.iface...)
	b.m.AddExecutionMode(b.f.ID(), spirv.ExecutionModeLocalSize, x, y, z)
	b.m.AddName(b.f.ID(), "main")
	return b.m.Words()
}

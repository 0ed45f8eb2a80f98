// Package spirv emits SPIR-V modules: start with New, emit a function through
// BeginFunction, take Module.Words. Types and constants are deduplicated.
package spirv

import (
	"fmt"
	"math"
)

// Magic is the first word of every SPIR-V module.
const Magic uint32 = 0x07230203

// ID is a SPIR-V result <id>. Zero is never a valid ID.
type ID uint32

// Module is a SPIR-V module under construction.
type Module struct {
	version uint32

	capabilities   []uint32
	extensions     []uint32
	extInstImports []uint32
	memoryModel    []uint32
	entryPoints    []uint32
	executionModes []uint32
	debugNames     []uint32
	annotations    []uint32
	globals        []uint32
	functions      []uint32

	bound   uint32
	dedup   map[string]ID
	caps    map[Capability]bool
	exts    map[string]bool
	imports map[string]ID
}

// New returns an empty module for the given SPIR-V version (e.g. Version13).
func New(version uint32) *Module {
	return &Module{
		version: version,
		bound:   1,
		dedup:   map[string]ID{},
		caps:    map[Capability]bool{},
		exts:    map[string]bool{},
		imports: map[string]ID{},
	}
}

// AllocID returns a fresh result ID.
func (m *Module) AllocID() ID {
	id := ID(m.bound)
	m.bound++
	return id
}

// Words returns the header and every section, in specification order.
func (m *Module) Words() []uint32 {
	out := []uint32{Magic, m.version, 0, m.bound, 0}
	for _, s := range [][]uint32{
		m.capabilities, m.extensions, m.extInstImports, m.memoryModel,
		m.entryPoints, m.executionModes, m.debugNames, m.annotations,
		m.globals, m.functions,
	} {
		out = append(out, s...)
	}
	return out
}

func inst(op Op, operands ...uint32) []uint32 {
	w := make([]uint32, 0, len(operands)+1)
	w = append(w, uint32(len(operands)+1)<<16|uint32(op))
	return append(w, operands...)
}

// String encodes a literal string: UTF-8, NUL-terminated, padded to words.
func String(s string) []uint32 {
	b := append([]byte(s), 0)
	for len(b)%4 != 0 {
		b = append(b, 0)
	}
	w := make([]uint32, len(b)/4)
	for i := range w {
		w[i] = uint32(b[4*i]) | uint32(b[4*i+1])<<8 | uint32(b[4*i+2])<<16 | uint32(b[4*i+3])<<24
	}
	return w
}

// AddCapability declares a capability once.
func (m *Module) AddCapability(c Capability) {
	if m.caps[c] {
		return
	}
	m.caps[c] = true
	m.capabilities = append(m.capabilities, inst(OpCapability, uint32(c))...)
}

// AddExtension declares a SPIR-V extension once.
func (m *Module) AddExtension(name string) {
	if m.exts[name] {
		return
	}
	m.exts[name] = true
	m.extensions = append(m.extensions, inst(OpExtension, String(name)...)...)
}

// AddExtInstImport imports an extended instruction set once and returns its ID.
func (m *Module) AddExtInstImport(name string) ID {
	if id, ok := m.imports[name]; ok {
		return id
	}
	id := m.AllocID()
	m.imports[name] = id
	m.extInstImports = append(m.extInstImports, inst(OpExtInstImport, append([]uint32{uint32(id)}, String(name)...)...)...)
	return id
}

// SetMemoryModel sets the module's single OpMemoryModel.
func (m *Module) SetMemoryModel(a AddressingModel, mm MemoryModel) {
	m.memoryModel = inst(OpMemoryModel, uint32(a), uint32(mm))
}

// AddEntryPoint declares fn as an entry point with the interface variables iface.
func (m *Module) AddEntryPoint(model ExecutionModel, fn ID, name string, iface ...ID) {
	ops := append([]uint32{uint32(model), uint32(fn)}, String(name)...)
	for _, id := range iface {
		ops = append(ops, uint32(id))
	}
	m.entryPoints = append(m.entryPoints, inst(OpEntryPoint, ops...)...)
}

// AddExecutionMode adds an execution mode with literal operands to fn.
func (m *Module) AddExecutionMode(fn ID, mode ExecutionMode, literals ...uint32) {
	ops := append([]uint32{uint32(fn), uint32(mode)}, literals...)
	m.executionModes = append(m.executionModes, inst(OpExecutionMode, ops...)...)
}

// AddName attaches a debug name to id.
func (m *Module) AddName(id ID, name string) {
	m.debugNames = append(m.debugNames, inst(OpName, append([]uint32{uint32(id)}, String(name)...)...)...)
}

// Decorate decorates id with d and its literal operands.
func (m *Module) Decorate(id ID, d Decoration, literals ...uint32) {
	ops := append([]uint32{uint32(id), uint32(d)}, literals...)
	m.annotations = append(m.annotations, inst(OpDecorate, ops...)...)
}

func (m *Module) memberDecorate(id ID, member uint32, d Decoration, literals ...uint32) {
	ops := append([]uint32{uint32(id), member, uint32(d)}, literals...)
	m.annotations = append(m.annotations, inst(OpMemberDecorate, ops...)...)
}

// global emits a deduplicated declaration; typ 0 means no result type.
func (m *Module) global(key string, op Op, typ ID, operands ...uint32) ID {
	if id, ok := m.dedup[key]; ok {
		return id
	}
	id := m.AllocID()
	m.dedup[key] = id
	var ops []uint32
	if typ != 0 {
		ops = append(ops, uint32(typ))
	}
	ops = append(append(ops, uint32(id)), operands...)
	m.globals = append(m.globals, inst(op, ops...)...)
	return id
}

// Variable declares a module-scope variable of pointer type ptr.
func (m *Module) Variable(ptr ID, sc StorageClass) ID {
	id := m.AllocID()
	m.globals = append(m.globals, inst(OpVariable, uint32(ptr), uint32(id), uint32(sc))...)
	return id
}

// ConstUint32 returns a 32-bit unsigned integer constant.
func (m *Module) ConstUint32(v uint32) ID {
	t := m.TypeInt(32, false)
	return m.global(fmt.Sprintf("c:%d:%d", t, v), OpConstant, t, v)
}

// ConstInt32 returns a 32-bit signed integer constant.
func (m *Module) ConstInt32(v int32) ID {
	t := m.TypeInt(32, true)
	return m.global(fmt.Sprintf("c:%d:%d", t, uint32(v)), OpConstant, t, uint32(v))
}

// ConstFloat32 returns a 32-bit float constant.
func (m *Module) ConstFloat32(v float32) ID {
	t := m.TypeFloat(32)
	b := math.Float32bits(v)
	return m.global(fmt.Sprintf("c:%d:%d", t, b), OpConstant, t, b)
}

// ConstFloat64 returns a 64-bit float constant (low word first).
func (m *Module) ConstFloat64(v float64) ID {
	t := m.TypeFloat(64)
	b := math.Float64bits(v)
	return m.global(fmt.Sprintf("c:%d:%d", t, b), OpConstant, t, uint32(b), uint32(b>>32))
}

// ConstBits returns a scalar constant of type t from its encoded literal words.
func (m *Module) ConstBits(t ID, words ...uint32) ID {
	return m.global(fmt.Sprintf("c:%d:%v", t, words), OpConstant, t, words...)
}

// ConstComposite returns a composite constant (one scalar fills a cooperative matrix).
func (m *Module) ConstComposite(t ID, parts ...ID) ID {
	return m.global(fmt.Sprintf("cc:%d:%v", t, parts), OpConstantComposite, t, ids(parts)...)
}

func ids(in []ID) []uint32 {
	out := make([]uint32, len(in))
	for i, v := range in {
		out[i] = uint32(v)
	}
	return out
}

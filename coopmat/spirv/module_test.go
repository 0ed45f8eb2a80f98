package spirv

import (
	"slices"
	"testing"
)

// Bound is one more than the largest ID allocated so far.
func (m *Module) Bound() uint32 { return m.bound }

func TestStringEncoding(t *testing.T) {
	// "main" is 4 bytes: the NUL needs a second word.
	if got, want := String("main"), []uint32{0x6e69616d, 0}; !slices.Equal(got, want) {
		t.Fatalf("String(main) = %#x, want %#x", got, want)
	}
	if got, want := String("abc"), []uint32{0x00636261}; !slices.Equal(got, want) {
		t.Fatalf("String(abc) = %#x, want %#x", got, want)
	}
}

// TestMinimalComputeModule checks every word of a small module: an empty
// compute shader with a workgroup size of 64.
func TestMinimalComputeModule(t *testing.T) {
	m := New(Version13)
	m.AddCapability(CapabilityShader)
	m.AddCapability(CapabilityShader) // deduplicated
	m.SetMemoryModel(AddressingLogical, MemoryModelGLSL450)
	void := m.TypeVoid()
	fnType := m.TypeFunction(void)
	if m.TypeVoid() != void || m.TypeFunction(void) != fnType {
		t.Fatal("types not deduplicated")
	}
	f := m.BeginFunction(void, fnType)
	f.Return()
	f.End()
	m.AddEntryPoint(ExecutionModelGLCompute, f.ID(), "main")
	m.AddExecutionMode(f.ID(), ExecutionModeLocalSize, 64, 1, 1)
	want := []uint32{
		Magic, 0x00010300, 0, 5, 0,
		2<<16 | 17, 1, // OpCapability Shader
		3<<16 | 14, 0, 1, // OpMemoryModel Logical GLSL450
		5<<16 | 15, 5, 3, 0x6e69616d, 0, // OpEntryPoint GLCompute %3 "main"
		6<<16 | 16, 3, 17, 64, 1, 1, // OpExecutionMode %3 LocalSize 64 1 1
		2<<16 | 19, 1, // %1 = OpTypeVoid
		3<<16 | 33, 2, 1, // %2 = OpTypeFunction %1
		5<<16 | 54, 1, 3, 0, 2, // %3 = OpFunction %1 None %2
		2<<16 | 248, 4, // %4 = OpLabel
		1<<16 | 253, // OpReturn
		1<<16 | 56,  // OpFunctionEnd
	}
	if got := m.Words(); !slices.Equal(got, want) {
		t.Fatalf("words:\n got %#x\nwant %#x", got, want)
	}
}

func TestConstantsAndTypes(t *testing.T) {
	m := New(Version16)
	u := m.TypeInt(32, false)
	c := m.ConstUint32(7)
	i := m.TypeInt(32, true)
	if m.ConstUint32(7) != c || m.TypeInt(32, false) != u || i == u {
		t.Fatal("constant/type deduplication wrong")
	}
	d := m.ConstFloat64(1.5) // 0x3ff8000000000000: low word first
	want := []uint32{
		4<<16 | 21, uint32(u), 32, 0, // OpTypeInt 32 0
		4<<16 | 43, uint32(u), uint32(c), 7, // OpConstant %u 7
		4<<16 | 21, uint32(i), 32, 1, // OpTypeInt 32 1
		3<<16 | 22, uint32(d) - 1, 64, // OpTypeFloat 64
		5<<16 | 43, uint32(d) - 1, uint32(d), 0, 0x3ff80000, // OpConstant %double 1.5
	}
	if got := m.globals; !slices.Equal(got, want) {
		t.Fatalf("globals:\n got %#x\nwant %#x", got, want)
	}
}

func TestCooperativeMatrixType(t *testing.T) {
	m := New(Version16)
	h := m.TypeFloat(16)
	cm := m.TypeCooperativeMatrix(h, ScopeSubgroup, 16, 8, MatrixAccumulator)
	if cm != m.TypeCooperativeMatrix(h, ScopeSubgroup, 16, 8, MatrixAccumulator) {
		t.Fatal("cooperative-matrix type not deduplicated")
	}
	// Capability, extension, and the type's operands are all <id>s of constants.
	if !slices.Equal(m.capabilities, []uint32{2<<16 | 17, 6022}) {
		t.Errorf("capabilities %#x", m.capabilities)
	}
	ext := append([]uint32{8<<16 | 10}, String("SPV_KHR_cooperative_matrix")...)
	if !slices.Equal(m.extensions, ext) {
		t.Errorf("extensions %#x", m.extensions)
	}
	scope, rows, cols, use := m.ConstUint32(3), m.ConstUint32(16), m.ConstUint32(8), m.ConstUint32(2)
	tail := m.globals[len(m.globals)-7:]
	want := []uint32{7<<16 | 4456, uint32(cm), uint32(h), uint32(scope), uint32(rows), uint32(cols), uint32(use)}
	if !slices.Equal(tail, want) {
		t.Errorf("OpTypeCooperativeMatrixKHR = %#x, want %#x", tail, want)
	}
}

// TestHeaderAndBound checks the header of a module with a loop: the bound
// is one past every ID used, and every instruction's word count adds up.
func TestHeaderAndBound(t *testing.T) {
	m := New(Version13)
	m.AddCapability(CapabilityShader)
	m.SetMemoryModel(AddressingLogical, MemoryModelGLSL450)
	void := m.TypeVoid()
	f := m.BeginFunction(void, m.TypeFunction(void))
	u := m.TypeInt(32, false)
	out := f.Loop(m.ConstUint32(4), []Carried{{Type: u, Init: m.ConstUint32(0)}}, func(i ID, v []ID) []ID {
		return []ID{f.Binary(OpIAdd, u, v[0], i)}
	})
	if len(out) != 1 {
		t.Fatal("loop lost its carried value")
	}
	f.Return()
	f.End()
	m.AddEntryPoint(ExecutionModelGLCompute, f.ID(), "main")
	w := m.Words()
	if w[0] != Magic || w[1] != Version13 || w[3] != m.Bound() || w[4] != 0 {
		t.Fatalf("header %#x", w[:5])
	}
	maxID := uint32(0)
	for i := 5; i < len(w); {
		n := int(w[i] >> 16)
		if n == 0 || i+n > len(w) {
			t.Fatalf("bad word count %d at word %d", n, i)
		}
		for _, x := range w[i+1 : i+n] {
			if x < m.Bound() {
				maxID = max(maxID, x)
			}
		}
		i += n
	}
	if maxID >= m.Bound() {
		t.Fatalf("ID %d not below bound %d", maxID, m.Bound())
	}
}

// TestDotPacked checks OpSDot's words and what it declares: the two
// capabilities always, the extension only below SPIR-V 1.6.
func TestDotPacked(t *testing.T) {
	for _, v := range []uint32{Version13, Version16} {
		m := New(v)
		void := m.TypeVoid()
		f := m.BeginFunction(void, m.TypeFunction(void))
		u, i := m.TypeInt(32, false), m.TypeInt(32, true)
		a, b := m.ConstUint32(1), m.ConstUint32(2)
		r := f.DotPacked(OpSDot, i, a, b)
		if got, want := f.body, []uint32{6<<16 | 4450, uint32(i), uint32(r), uint32(a), uint32(b), 0}; !slices.Equal(got, want) {
			t.Errorf("SPIR-V %#x: OpSDot = %#x, want %#x", v, got, want)
		}
		if r2 := f.DotPacked(OpUDot, u, b, a); !slices.Equal(f.body[6:], []uint32{6<<16 | 4451, uint32(u), uint32(r2), uint32(b), uint32(a), 0}) {
			t.Errorf("SPIR-V %#x: OpUDot = %#x", v, f.body[6:])
		}
		if want := []uint32{2<<16 | 17, 6019, 2<<16 | 17, 6018}; !slices.Equal(m.capabilities, want) {
			t.Errorf("SPIR-V %#x: capabilities %#x, want %#x", v, m.capabilities, want)
		}
		var ext []uint32
		if v < Version16 {
			ext = append([]uint32{8<<16 | 10}, String("SPV_KHR_integer_dot_product")...)
		}
		if !slices.Equal(m.extensions, ext) {
			t.Errorf("SPIR-V %#x: extensions %#x, want %#x", v, m.extensions, ext)
		}
	}
}

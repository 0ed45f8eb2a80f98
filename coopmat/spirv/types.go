package spirv

import "fmt"

// TypeVoid returns the void type.
func (m *Module) TypeVoid() ID { return m.global("void", OpTypeVoid, 0) }

// TypeBool returns the boolean type.
func (m *Module) TypeBool() ID { return m.global("bool", OpTypeBool, 0) }

// TypeInt returns an integer type of width bits; widths other than 32 need a capability.
func (m *Module) TypeInt(width uint32, signed bool) ID {
	s := uint32(0)
	if signed {
		s = 1
	}
	return m.global(fmt.Sprintf("int:%d:%d", width, s), OpTypeInt, 0, width, s)
}

// TypeFloat returns an IEEE float type of width bits.
func (m *Module) TypeFloat(width uint32) ID {
	return m.global(fmt.Sprintf("float:%d", width), OpTypeFloat, 0, width)
}

// TypeBFloat16 returns the bfloat16 type, declaring what it needs.
func (m *Module) TypeBFloat16() ID {
	m.AddCapability(CapabilityBFloat16TypeKHR)
	m.AddExtension("SPV_KHR_bfloat16")
	return m.global("bfloat16", OpTypeFloat, 0, 16, uint32(FPEncodingBFloat16))
}

// TypeVector returns a vector of n elements of type elem.
func (m *Module) TypeVector(elem ID, n uint32) ID {
	return m.global(fmt.Sprintf("vec:%d:%d", elem, n), OpTypeVector, 0, uint32(elem), n)
}

// TypeArray returns a fixed array of n elements (n becomes a uint constant).
func (m *Module) TypeArray(elem ID, n uint32) ID {
	length := m.ConstUint32(n)
	return m.global(fmt.Sprintf("arr:%d:%d", elem, length), OpTypeArray, 0, uint32(elem), uint32(length))
}

// TypeRuntimeArray returns a runtime-sized array decorated with stride bytes.
func (m *Module) TypeRuntimeArray(elem ID, stride uint32) ID {
	key := fmt.Sprintf("rta:%d:%d", elem, stride)
	_, seen := m.dedup[key]
	id := m.global(key, OpTypeRuntimeArray, 0, uint32(elem))
	if !seen {
		m.Decorate(id, DecorationArrayStride, stride)
	}
	return id
}

// TypeStorageBlock returns a Block struct of one member at offset 0 (a storage buffer).
func (m *Module) TypeStorageBlock(member ID) ID {
	key := fmt.Sprintf("block:%d", member)
	_, seen := m.dedup[key]
	id := m.global(key, OpTypeStruct, 0, uint32(member))
	if !seen {
		m.Decorate(id, DecorationBlock)
		m.memberDecorate(id, 0, DecorationOffset, 0)
	}
	return id
}

// TypeBlock returns a Block struct of members at byte offsets (push constants).
func (m *Module) TypeBlock(members []ID, offsets []uint32) ID {
	key := fmt.Sprintf("blockn:%v:%v", members, offsets)
	_, seen := m.dedup[key]
	id := m.global(key, OpTypeStruct, 0, ids(members)...)
	if !seen {
		m.Decorate(id, DecorationBlock)
		for i, off := range offsets {
			m.memberDecorate(id, uint32(i), DecorationOffset, off)
		}
	}
	return id
}

// TypePointer returns a pointer to elem in storage class sc.
func (m *Module) TypePointer(sc StorageClass, elem ID) ID {
	return m.global(fmt.Sprintf("ptr:%d:%d", sc, elem), OpTypePointer, 0, uint32(sc), uint32(elem))
}

// TypeFunction returns a function type.
func (m *Module) TypeFunction(ret ID, params ...ID) ID {
	return m.global(fmt.Sprintf("fn:%d:%v", ret, params), OpTypeFunction, 0, append([]uint32{uint32(ret)}, ids(params)...)...)
}

// TypeCooperativeMatrix returns a cooperative-matrix type, declaring what it needs.
func (m *Module) TypeCooperativeMatrix(component ID, scope Scope, rows, cols uint32, use MatrixUse) ID {
	m.AddCapability(CapabilityCooperativeMatrixKHR)
	m.AddExtension("SPV_KHR_cooperative_matrix")
	s, r, c, u := m.ConstUint32(uint32(scope)), m.ConstUint32(rows), m.ConstUint32(cols), m.ConstUint32(uint32(use))
	key := fmt.Sprintf("coopmat:%d:%d:%d:%d:%d", component, s, r, c, u)
	return m.global(key, OpTypeCooperativeMatrixKHR, 0, uint32(component), uint32(s), uint32(r), uint32(c), uint32(u))
}

// Package packed is the CPU reference of the packed 4×8-bit dot-product kernels.
package packed

// Dot4I8 is the dot product of the four sign-extended bytes of a and b.
func Dot4I8(a, b uint32) int32 {
	var s int32
	for k := 0; k < 32; k += 8 {
		s += int32(int8(a>>k)) * int32(int8(b>>k))
	}
	return s
}

// Dot4U8 is the dot product of the four bytes of a and b as unsigned integers.
func Dot4U8(a, b uint32) uint32 {
	var s uint32
	for k := 0; k < 32; k += 8 {
		s += (a >> k & 0xFF) * (b >> k & 0xFF)
	}
	return s
}

// DotRound is one Feistel round: a += dot4(b, w), then b += dot4(a, w); signed picks Dot4I8.
func DotRound(a, b, w uint32, signed bool) (uint32, uint32) {
	if signed {
		a += uint32(Dot4I8(b, w))
		return a, b + uint32(Dot4I8(a, w))
	}
	a += Dot4U8(b, w)
	return a, b + Dot4U8(a, w)
}

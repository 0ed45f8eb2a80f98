// Package packed is the CPU reference of packed 4×8-bit integer dot
// products (WGSL's dot4I8Packed and dot4U8Packed, SPIR-V's OpSDot and
// OpUDot on 32-bit words) and of the Feistel round the dot-product
// throughput kernels chain them in, for both the WebGPU probe (package gpu)
// and the raw-Vulkan one (coopmat).
package packed

// Dot4I8 is the dot product of the four sign-extended bytes of a and b, in
// int32 (it cannot overflow).
func Dot4I8(a, b uint32) int32 {
	var s int32
	for k := 0; k < 32; k += 8 {
		s += int32(int8(a>>k)) * int32(int8(b>>k))
	}
	return s
}

// Dot4U8 is the dot product of the four bytes of a and b as unsigned
// integers.
func Dot4U8(a, b uint32) uint32 {
	var s uint32
	for k := 0; k < 32; k += 8 {
		s += (a >> k & 0xFF) * (b >> k & 0xFF)
	}
	return s
}

// DotRound is one Feistel round on the pair (a, b) with weights w:
// a += dot4(b, w), then b += dot4(a, w), wrapping modulo 2^32; signed
// picks Dot4I8, else Dot4U8.
func DotRound(a, b, w uint32, signed bool) (uint32, uint32) {
	if signed {
		a += uint32(Dot4I8(b, w))
		return a, b + uint32(Dot4I8(a, w))
	}
	a += Dot4U8(b, w)
	return a, b + Dot4U8(a, w)
}

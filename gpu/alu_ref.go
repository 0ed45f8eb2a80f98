package gpu

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/everycycle/appraise/internal/measure/refcheck"
)

// CPU reference of wgsl/alu_*.wgsl, exact for any loop count. Float chains
// step x = fma(fma(x, 2, 6g), 0.5, -2g) = x + g on small multiples of a
// power of two g, so nothing rounds, fused or not; int32 runs a linear map
// mod 2^32.

type aluKind int

const (
	aluF32 aluKind = iota
	aluI32
)

// Constants of the kernels; the counts follow the WGSL files.
const (
	floatA, floatC = 2.0, 0.5
	gridF32        = 0x1p-12
	f32Significand = 24
	floatOffsets   = 512 // chain starts are base + g*offset, offset in [0, 512)
	pairsPerTrip   = 8

	i32Mult uint32 = 0x2C9277B5 // odd
	i32Seed uint32 = 0x5EED1234

	i32Chains, i32Lanes, i32RoundsPerTrip = 4, 4, 8
)

// maxIters is the most loop trips per dispatch: float chains of P pairs
// stay exact while P/2 + 258 <= 2^p for p significand bits.
func (k aluKind) maxIters() uint32 {
	if k != aluF32 {
		return aluMaxIters
	}
	pairs := (uint64(1)<<(f32Significand+1) - 2*(floatOffsets/2+2)) / pairsPerTrip
	return uint32(min(pairs, aluMaxIters))
}

// floatBase is every float chain's start before its offset, in units of g.
func floatBase(pairs int64) int64 { return -(pairs / 2) - floatOffsets/2 }

func aluParams(k aluKind, iters, groups uint32) []byte {
	if k == aluI32 {
		return words(iters, groups, i32Mult, i32Seed)
	}
	const g = gridF32
	base := float64(floatBase(int64(iters)*pairsPerTrip)) * g
	return words(iters, groups, f32(floatA), f32(floatC), f32(6*g), f32(-2*g), f32(base), f32(g))
}

func f32(x float64) uint32 { return math.Float32bits(float32(x)) }

func words(ws ...uint32) []byte {
	b := make([]byte, 4*len(ws))
	for i, w := range ws {
		binary.LittleEndian.PutUint32(b[4*i:], w)
	}
	return b
}

// aluReference returns the expected output word of each invocation.
func aluReference(k aluKind, iters uint32) func(i uint64) uint32 {
	if k == aluI32 {
		m := i32Round(i32Mult).pow(uint64(iters) * i32RoundsPerTrip)
		return func(i uint64) uint32 { return i32Output(uint32(i), m) }
	}
	t := floatTable(iters)
	return func(i uint64) uint32 { return t[i%16] }
}

// floatTable is a float kernel's output for each invocation index mod 16.
func floatTable(iters uint32) [16]uint32 {
	pairs := int64(iters) * pairsPerTrip
	base := floatBase(pairs)
	var t [16]uint32
	for r := range t {
		h := fnvBasis
		for c := uint32(0); c < 8; c++ {
			for l := uint32(0); l < 4; l++ {
				k := base + int64(floatOffset(uint32(r), c, l)) + pairs
				h = fnv(h, math.Float32bits(float32(float64(k)*gridF32)))
			}
		}
		t[r] = h
	}
	return t
}

// FNV-1a folds each invocation's values into its output word.
const (
	fnvBasis uint32 = 2166136261
	fnvPrime uint32 = 16777619
)

func fnv(h, w uint32) uint32 { return (h ^ w) * fnvPrime }

// floatOffset is start()'s offset in alu_f32.wgsl.
func floatOffset(i, c, l uint32) uint32 { return (i&15)<<5 + 4*c + l }

// mat2 is a 2x2 matrix modulo 2^32, row-major.
type mat2 [4]uint32

func (m mat2) mul(n mat2) mat2 {
	return mat2{m[0]*n[0] + m[1]*n[2], m[0]*n[1] + m[1]*n[3], m[2]*n[0] + m[3]*n[2], m[2]*n[1] + m[3]*n[3]}
}

func (m mat2) pow(e uint64) mat2 {
	r := mat2{1, 0, 0, 1}
	for ; e > 0; e >>= 1 {
		if e&1 == 1 {
			r = r.mul(m)
		}
		m = m.mul(m)
	}
	return r
}

// i32Round is one round of alu_i32.wgsl: x' = a x + y, y' = a y + x'.
func i32Round(a uint32) mat2 { return mat2{a, 1, a, a + 1} }

// i32Start is start() of alu_i32.wgsl.
func i32Start(i, c, l uint32) (x, y uint32) {
	x = i*0x9E3779B1 + i32Seed + (l+4*c)*0x85EBCA77
	return x, x*0x27D4EB2F + 0x165667B1
}

// i32Output is invocation i's output with every chain advanced by m.
func i32Output(i uint32, m mat2) uint32 {
	h := fnvBasis
	for c := uint32(0); c < i32Chains; c++ {
		var ys [i32Lanes]uint32
		for l := range ys {
			x, y := i32Start(i, c, uint32(l))
			h = fnv(h, m[0]*x+m[1]*y)
			ys[l] = m[2]*x + m[3]*y
		}
		for _, y := range ys {
			h = fnv(h, y)
		}
	}
	return h
}

// checkWords compares output words, the first of invocation first, with want.
func checkWords(chunk []byte, first uint64, want func(i uint64) uint32) refcheck.Result {
	return refcheck.Parallel(uint64(len(chunk)/4), func(lo, hi uint64) refcheck.Result {
		r := refcheck.New()
		for k := lo; k < hi; k++ {
			got, w := binary.LittleEndian.Uint32(chunk[4*k:]), want(first+k)
			r.Checked++
			if got != w && r.Bad < 0 {
				r.Bad, r.Got, r.Want = int64(first+k), float64(got), float64(w)
			}
		}
		return r
	})
}

// wordsErr turns a failed exact check into an error wrapping ErrCheckFailed.
func wordsErr(kernel string, r refcheck.Result) error {
	if r.Bad < 0 {
		return nil
	}
	return fmt.Errorf("%w: %s: invocation %d output %#08x, want %#08x (exact; %d invocations compared)",
		ErrCheckFailed, kernel, r.Bad, uint32(r.Got), uint32(r.Want), r.Checked)
}

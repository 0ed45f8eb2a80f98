package gpu

import (
	"encoding/binary"
	"fmt"
	"math"
	"sync"

	"github.com/everycycle/appraise/internal/measure/packed"
	"github.com/everycycle/appraise/internal/measure/refcheck"
)

// CPU reference of the wgsl/alu_*.wgsl kernels. Every kernel is built so
// that the host knows each invocation's output exactly and cheaply, for any
// loop count, without trusting a tolerance:
//
//   - fp32 and fp16 run x = fma(fma(x, 2, 6g), 0.5, -2g) = x + g with every
//     value an integer multiple of a power of two g and small enough for
//     the type's significand (fp32: 24 bits, fp16: 11). Each product is a
//     scaling by a power of two and each sum is exact, so the GPU's result
//     is the same whether fma is fused or not (WGSL allows either), and a
//     chain's final value is its start plus (pairs run) * g: a closed form
//     that also proves every FMA ran. Nothing ever rounds, so the reference
//     needs no fp16 arithmetic at all, and fp16's 11 bits only cap the loop
//     count (maxIters).
//   - int32 runs the linear map (x, y) -> (a x + y, a x + (a+1) y) modulo
//     2^32: the final pair is a power of its matrix times the start.
//   - the 8-bit dot products run Feistel rounds a += dot4(b, w), b +=
//     dot4(a, w), which have no closed form; their start values repeat
//     every 64 invocations, so the host steps 64 x 16 chains.
//
// On simulating fp32 FMA with float64: float32(math.FMA(x, y, z)) is not
// always the fp32 FMA. The product of two float32s is exact in float64,
// but adding z can need more than 53 bits, so math.FMA rounds once to
// float64 and the conversion rounds again. That double rounding goes wrong
// exactly when the first rounding lands on a float32 midpoint (a tie the
// exact sum did not have); the tests' fmaF32 detects that case and redoes it
// exactly. The kernels never round, so the probe's reference does not need
// it; the tests use it to step the fp32 recurrence one fused
// multiply-add at a time and confirm the closed form.

// aluKind selects a kernel's uniform layout and reference.
type aluKind int

const (
	aluF32 aluKind = iota
	aluF16
	aluI32
	aluDotI8
	aluDotU8
)

// Constants of the kernels. The float grid g is a power of two: values
// stay within ±2^10 (fp32) or ±2^9 (fp16), far from overflow, and never
// below g, far from the subnormals.
const (
	floatA, floatC = 2.0, 0.5
	gridF32        = 0x1p-12
	gridF16        = 0x1p-2
	// floatOffsets: chain starts are base + g*offset, offset in [0, 512).
	floatOffsets = 512
	// pairsPerTrip is the FMA pairs per chain per loop trip (PerTrip/2).
	pairsPerTrip = 8
	// i32Mult is the int32 multiplier (odd); i32Seed seeds the starts.
	i32Mult uint32 = 0x2C9277B5
	i32Seed uint32 = 0x5EED1234
	// dotWI8 packs the signed weights (3, -5, 7, -11), dotWU8 the unsigned
	// (3, 5, 7, 11), lowest byte first; dotSeed seeds the starts.
	dotWI8  uint32 = 0xF507FB03
	dotWU8  uint32 = 0x0B070503
	dotSeed uint32 = 0x0D07C0DE
	// dotClasses: dot4 start values depend on the invocation index mod 64.
	dotClasses = 64
	// dotChains and dotRoundsPerTrip follow wgsl/alu_dot4.wgsl.
	dotChains        = 16
	dotRoundsPerTrip = 4
	// i32Chains, i32Lanes and i32RoundsPerTrip follow wgsl/alu_i32.wgsl.
	i32Chains, i32Lanes, i32RoundsPerTrip = 4, 4, 8
	// dotMaxIters caps the dot4 loop so the host's stepping (64 x 16
	// chains) stays well under a second.
	dotMaxIters = 4096
)

// significandBits is the precision of the float kind, in bits.
func significandBits(k aluKind) int {
	if k == aluF16 {
		return 11
	}
	return 24
}

// floatGrid is the power of two every value of a float kernel is a multiple of.
func floatGrid(k aluKind) float64 {
	if k == aluF16 {
		return gridF16
	}
	return gridF32
}

// maxIters is the most loop trips a kernel of kind k may run per dispatch.
// Float chains start at base + g*offset with base = -(P/2 + 256) g, P pairs
// in all, and end at +(P/2 + 255) g; the first FMA of a pair makes
// (k+3)*2g from k*g, so every value is exact while P/2 + 258 <= 2^p.
func (k aluKind) maxIters() uint32 {
	switch k {
	case aluF32, aluF16:
		p := significandBits(k)
		pairs := (uint64(1)<<(p+1) - 2*(floatOffsets/2+2)) / pairsPerTrip
		return uint32(min(pairs, aluMaxIters))
	case aluDotI8, aluDotU8:
		return dotMaxIters
	default:
		return aluMaxIters
	}
}

// floatBase is the start of every float chain before its offset, in units
// of g, when a dispatch runs pairs FMA pairs per chain.
func floatBase(pairs int64) int64 { return -(pairs / 2) - floatOffsets/2 }

// aluParams encodes the Params uniform of a kernel of kind k.
func aluParams(k aluKind, iters, groups uint32) []byte {
	switch k {
	case aluF32, aluF16:
		g := floatGrid(k)
		base := float64(floatBase(int64(iters)*pairsPerTrip)) * g
		return words(iters, groups, f32(floatA), f32(floatC), f32(6*g), f32(-2*g), f32(base), f32(g))
	case aluI32:
		return words(iters, groups, i32Mult, i32Seed)
	case aluDotI8:
		return words(iters, groups, dotWI8, dotSeed)
	default:
		return words(iters, groups, dotWU8, dotSeed)
	}
}

// f32 is the bits of x as a float32.
func f32(x float64) uint32 { return math.Float32bits(float32(x)) }

// words encodes 32-bit words little-endian.
func words(ws ...uint32) []byte {
	b := make([]byte, 4*len(ws))
	for i, w := range ws {
		binary.LittleEndian.PutUint32(b[4*i:], w)
	}
	return b
}

// aluReference returns the expected output word of invocation i of a
// dispatch of kind k running iters loop trips.
func aluReference(k aluKind, iters uint32) func(i uint64) uint32 {
	switch k {
	case aluF32, aluF16:
		t := floatTable(floatGrid(k), iters)
		return func(i uint64) uint32 { return t[i%16] }
	case aluI32:
		m := i32Round(i32Mult).pow(uint64(iters) * i32RoundsPerTrip)
		return func(i uint64) uint32 { return i32Output(uint32(i), m) }
	default:
		t := dotTable(k == aluDotI8, iters)
		return func(i uint64) uint32 { return t[i%dotClasses] }
	}
}

// floatTable is the output of a float kernel for each invocation index mod
// 16 (the offsets repeat with that period): the FNV-1a fold of the float32
// bit patterns of every chain's and lane's final value (base + offset +
// pairs) * g, chain by chain, lanes in order. The fp16 kernel widens to
// float32 before folding, so one table serves both.
func floatTable(g float64, iters uint32) [16]uint32 {
	pairs := int64(iters) * pairsPerTrip
	base := floatBase(pairs)
	var t [16]uint32
	for r := range t {
		h := fnvBasis
		for c := uint32(0); c < 8; c++ {
			for l := uint32(0); l < 4; l++ {
				k := base + int64(floatOffset(uint32(r), c, l)) + pairs
				h = fnv(h, math.Float32bits(float32(float64(k)*g)))
			}
		}
		t[r] = h
	}
	return t
}

// FNV-1a, 32-bit: every kernel folds its values into one output word with
// it. Each step is a bijection of the word folded in, so a change in any
// one value changes the output.
const (
	fnvBasis uint32 = 2166136261
	fnvPrime uint32 = 16777619
)

// fnv folds w into the hash h.
func fnv(h, w uint32) uint32 { return (h ^ w) * fnvPrime }

// floatOffset is start()'s offset in alu_f32.wgsl for invocation i, chain
// c, lane l.
func floatOffset(i, c, l uint32) uint32 { return (i&15)<<5 + 4*c + l }

// mat2 is a 2x2 matrix over the integers modulo 2^32, row-major.
type mat2 [4]uint32

// mul is m*n modulo 2^32.
func (m mat2) mul(n mat2) mat2 {
	return mat2{m[0]*n[0] + m[1]*n[2], m[0]*n[1] + m[1]*n[3], m[2]*n[0] + m[3]*n[2], m[2]*n[1] + m[3]*n[3]}
}

// pow is m^e by repeated squaring.
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

// i32Round is the matrix of one round of alu_i32.wgsl: x' = a x + y,
// y' = a y + x' = a x + (a+1) y.
func i32Round(a uint32) mat2 { return mat2{a, 1, a, a + 1} }

// i32Start is start() of alu_i32.wgsl for invocation i, chain c, lane l.
func i32Start(i, c, l uint32) (x, y uint32) {
	x = i*0x9E3779B1 + i32Seed + (l+4*c)*0x85EBCA77
	return x, x*0x27D4EB2F + 0x165667B1
}

// i32Output is invocation i's output when every chain has been advanced
// by the matrix m: the FNV-1a fold of each chain's final x lanes, then its
// y lanes.
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

// dotStart is start() of alu_dot4.wgsl for class s, chain c.
func dotStart(s, c uint32) (a, b uint32) {
	a = s*0x9E3779B1 + c*0x85EBCA77 + dotSeed
	return a, a*0x27D4EB2F + 0x165667B1
}

// dotTable steps every chain of each of the 64 start classes through
// iters loop trips and folds each class's words with FNV-1a, chain by
// chain, a then b.
func dotTable(signed bool, iters uint32) [dotClasses]uint32 {
	w := dotWU8
	if signed {
		w = dotWI8
	}
	rounds := uint64(iters) * dotRoundsPerTrip
	var t [dotClasses]uint32
	var wg sync.WaitGroup
	for s := range t {
		wg.Go(func() {
			h := fnvBasis
			for c := uint32(0); c < dotChains; c++ {
				a, b := dotStart(uint32(s), c)
				for range rounds {
					a, b = packed.DotRound(a, b, w, signed)
				}
				h = fnv(fnv(h, a), b)
			}
			t[s] = h
		})
	}
	wg.Wait()
	return t
}

// checkWords compares a chunk of output words, the first of which is
// invocation first, with want, exactly.
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

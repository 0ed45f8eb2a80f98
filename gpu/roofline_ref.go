package gpu

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/everycycle/appraise/internal/measure/refcheck"
)

// CPU reference of wgsl/roofline.wgsl. Every input is a pattern of its
// scalar index and every output a closed form of it: fp32 inputs are k*g
// that stay exact multiples of a power of two g (as in the ALU kernels),
// int32 elements are two chains advanced by a matrix power mod 2^32.

type rooflineKind int

const (
	roofF32 rooflineKind = iota
	roofI32
)

const (
	roofGrid        = 0x1p-8
	roofSeed uint32 = 0x500F11E5
	roofMult uint32 = 0x2C9277B5 // odd, so no chain collapses
	roofSpan        = 1 << 20    // fp32 inputs are k*g, k in [-roofSpan, roofSpan)
)

func rooflineParams(groups, iters, hidden uint32) []byte {
	g := roofGrid
	return words(groups, iters, hidden, roofSeed, roofMult, f32(g),
		f32(floatA), f32(floatC), f32(6*g), f32(-2*g), 0, 0)
}

// roofWord is word() of roofline.wgsl.
func roofWord(i uint32) uint32 { return i*roofStep + roofSeed }

func roofK(i uint32) int64 { return int64(roofWord(i)&(2*roofSpan-1)) - roofSpan }

// rooflineReference returns the expected output word of each scalar index.
func rooflineReference(k rooflineKind, iters uint32) func(i uint64) uint32 {
	if k == roofI32 {
		m := i32Round(roofMult).pow(uint64(iters))
		return func(i uint64) uint32 { return roofI32Output(uint32(i), m) }
	}
	pairs := int64(iters / 2)
	odd := iters%2 == 1
	return func(i uint64) uint32 {
		k := roofK(uint32(i)) + pairs
		if odd {
			k = 2*k + 6
		}
		return f32(float64(k) * roofGrid)
	}
}

// checkRoofline compares output words, the first at scalar index first,
// exactly with rooflineReference(k, iters), computed inline.
func checkRoofline(k rooflineKind, iters uint32, chunk []byte, first uint64) refcheck.Result {
	var m mat2
	if k == roofI32 {
		m = i32Round(roofMult).pow(uint64(iters))
	}
	return refcheck.Parallel(uint64(len(chunk)/4), func(lo, hi uint64) refcheck.Result {
		ws := chunk[4*lo : 4*hi]
		bad := -1
		if k == roofI32 {
			bad = firstBadI32(ws, uint32(first+lo), m)
		} else {
			bad = firstBadF32(ws, uint32(first+lo), iters)
		}
		r := refcheck.New()
		r.Checked = hi - lo
		if bad >= 0 {
			i := first + lo + uint64(bad)
			want := rooflineReference(k, iters)(i)
			r.Bad, r.Got, r.Want = int64(i), float64(binary.LittleEndian.Uint32(ws[4*bad:])), float64(want)
		}
		return r
	})
}

const roofStep uint32 = 0x9E3779B1

// firstBadF32 is the index in ws of the first wrong fp32 output, or -1;
// ws[0] is scalar i0.
func firstBadF32(ws []byte, i0, iters uint32) int {
	pairs, odd := int32(iters/2), int32(iters%2)
	word := roofWord(i0)
	for j := 0; j+4 <= len(ws); j += 4 {
		k := int32(word&(2*roofSpan-1)) - roofSpan + pairs
		k += odd * (k + 6) // 2k + 6 when iters is odd
		word += roofStep
		if binary.LittleEndian.Uint32(ws[j:j+4]) != math.Float32bits(float32(k)*roofGrid) {
			return j / 4
		}
	}
	return -1
}

// firstBadI32 is the index in ws of the first wrong int32 output, or -1;
// ws[0] is scalar i0.
func firstBadI32(ws []byte, i0 uint32, m mat2) int {
	n := len(ws) / 4
	j := 0
	for ; j < n && (i0+uint32(j))%4 != 0; j++ {
		if binary.LittleEndian.Uint32(ws[4*j:]) != roofI32Output(i0+uint32(j), m) {
			return j
		}
	}
	for ; j+4 <= n; j += 4 {
		x0 := roofWord(i0 + uint32(j))
		x1 := x0 + roofStep
		y0 := x1 + roofStep
		y1 := y0 + roofStep
		e := ws[4*j : 4*j+16]
		if binary.LittleEndian.Uint32(e[0:4]) != m[0]*x0+m[1]*y0 || binary.LittleEndian.Uint32(e[4:8]) != m[0]*x1+m[1]*y1 ||
			binary.LittleEndian.Uint32(e[8:12]) != m[2]*x0+m[3]*y0 || binary.LittleEndian.Uint32(e[12:16]) != m[2]*x1+m[3]*y1 {
			break // the element-wise loop below finds which word
		}
	}
	for ; j < n; j++ {
		if binary.LittleEndian.Uint32(ws[4*j:]) != roofI32Output(i0+uint32(j), m) {
			return j
		}
	}
	return -1
}

// roofI32Output is the output at scalar index i: lanes 0 and 1 hold x of
// their chain, lanes 2 and 3 its y.
func roofI32Output(i uint32, m mat2) uint32 {
	base, lane := i&^3, i&3
	x, y := roofWord(base+lane%2), roofWord(base+lane%2+2)
	if lane < 2 {
		return m[0]*x + m[1]*y
	}
	return m[2]*x + m[3]*y
}

// roofMaxIters is the most counted operations per scalar an fp32 point may
// run and stay exact: 2(2^20 + iters/2) + 6 < 2^24.
const roofMaxIters = 1 << 23

// rooflineErr wraps ErrCheckFailed for a failed check.
func rooflineErr(k rooflineKind, r refcheck.Result) error {
	if r.Bad < 0 {
		return nil
	}
	got, want := uint32(r.Got), uint32(r.Want)
	detail := ""
	if k == roofF32 {
		detail = fmt.Sprintf(" (%g, want %g)", math.Float32frombits(got), math.Float32frombits(want))
	}
	return fmt.Errorf("%w: element %d is %#08x, want %#08x%s (exact; %d elements compared)",
		ErrCheckFailed, r.Bad, got, want, detail, r.Checked)
}

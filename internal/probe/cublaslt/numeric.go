package cublaslt

import (
	"encoding/binary"
	"math"
	"sync"
)

// encode rounds finite x to float type t (ties to even, saturating) or
// truncates it to integer type t, and returns its bit pattern.
func encode(t Type, x float64) uint64 {
	switch t {
	case F64:
		return math.Float64bits(x)
	case F32:
		return uint64(math.Float32bits(float32(x)))
	case TF32:
		return uint64(tf32Bits(float32(x)))
	case I8: // integers wrap, as the device's stores do
		return uint64(uint8(int64(x)))
	case I32:
		return uint64(uint32(int64(x)))
	}
	return miniBits(formats[t], x)
}

// tf32Bits rounds a float32 to 10 mantissa bits (ties to even).
func tf32Bits(f float32) uint32 {
	b := math.Float32bits(f)
	b += 0xfff + (b >> 13 & 1)
	return b &^ 0x1fff
}

// miniBits encodes x in a small binary float format, saturating.
func miniBits(f format, x float64) uint64 {
	var sign uint64
	if math.Signbit(x) {
		sign, x = 1, -x
	}
	signBit := sign << (f.exp + f.man)
	bias := 1<<(f.exp-1) - 1
	minExp := 1 - bias // exponent of the smallest normal
	if x == 0 {
		return signBit
	}
	if x >= f.maxVal {
		x = f.maxVal
	}
	_, e := math.Frexp(x) // x = frac·2^e, frac in [0.5, 1)
	e--
	if e < minExp {
		e = minExp
	}
	quantum := math.Ldexp(1, e-f.man)
	q := math.RoundToEven(x/quantum) * quantum
	if q > f.maxVal {
		q = f.maxVal
	}
	if q == 0 {
		return signBit
	}
	if q < math.Ldexp(1, minExp) { // subnormal
		return signBit | uint64(q/math.Ldexp(1, minExp-f.man))
	}
	_, e = math.Frexp(q)
	e--
	mant := uint64(math.Ldexp(q, f.man-e)) - 1<<f.man
	return signBit | uint64(e+bias)<<f.man | mant
}

// decode is the value of bit pattern b of type t (integers sign-extended).
func decode(t Type, b uint64) float64 {
	switch t {
	case F64:
		return math.Float64frombits(b)
	case F32, TF32:
		return float64(math.Float32frombits(uint32(b)))
	case I8:
		return float64(int8(b))
	case I32:
		return float64(int32(b))
	case F16, BF16, F8E4M3, F8E5M2, F4E2M1, F6E2M3, F6E3M2:
		return smallTable(t)[b]
	}
	return math.NaN()
}

// miniValue decodes a small float format's bit pattern.
func miniValue(f format, b uint64) float64 {
	bias := 1<<(f.exp-1) - 1
	mant := b & (1<<f.man - 1)
	e := int(b>>f.man) & (1<<f.exp - 1)
	sign := 1.0
	if b>>(f.exp+f.man)&1 == 1 {
		sign = -1
	}
	switch {
	case f.ieee && e == 1<<f.exp-1:
		if mant != 0 {
			return math.NaN()
		}
		return sign * math.Inf(1)
	case !f.ieee && f.bits == 8 && e == 1<<f.exp-1 && mant == 1<<f.man-1:
		return math.NaN() // e4m3: S.1111.111
	case e == 0:
		return sign * math.Ldexp(float64(mant), 1-bias-f.man)
	}
	return sign * math.Ldexp(float64(mant|1<<f.man), e-bias-f.man)
}

// tables holds each type of at most 16 bits' decode table, immutable once built.
var tables sync.Map // Type → []float64

func smallTable(t Type) []float64 {
	if v, ok := tables.Load(t); ok {
		return v.([]float64)
	}
	f := formats[t]
	tab := make([]float64, 1<<f.bits)
	for b := range tab {
		if t == BF16 {
			tab[b] = float64(math.Float32frombits(uint32(b) << 16))
		} else {
			tab[b] = miniValue(f, uint64(b))
		}
	}
	v, _ := tables.LoadOrStore(t, tab)
	return v.([]float64)
}

// put stores element i of type t with bit pattern v into raw.
func put(raw []byte, t Type, i int, v uint64) {
	switch t.Bits() {
	case 64:
		binary.LittleEndian.PutUint64(raw[8*i:], v)
	case 32:
		binary.LittleEndian.PutUint32(raw[4*i:], uint32(v))
	case 16:
		binary.LittleEndian.PutUint16(raw[2*i:], uint16(v))
	case 8:
		raw[i] = byte(v)
	case 4: // element 2j in the low nibble of byte j, 2j+1 in the high one
		sh := uint(i&1) * 4
		raw[i/2] = raw[i/2]&^(0xf<<sh) | byte(v&0xf)<<sh
	}
}

// get reads the bit pattern of element i of type t from raw.
func get(raw []byte, t Type, i int) uint64 {
	switch t.Bits() {
	case 64:
		return binary.LittleEndian.Uint64(raw[8*i:])
	case 32:
		return uint64(binary.LittleEndian.Uint32(raw[4*i:]))
	case 16:
		return uint64(binary.LittleEndian.Uint16(raw[2*i:]))
	case 8:
		return uint64(raw[i])
	case 4:
		return uint64(raw[i/2]>>(uint(i&1)*4)) & 0xf
	}
	return 0
}

// value is element i of raw, of type t, as a float64.
func value(raw []byte, t Type, i int) float64 { return decode(t, get(raw, t, i)) }

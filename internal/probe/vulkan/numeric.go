package vulkan

import (
	"encoding/binary"
	"math"
	"math/rand/v2"
	"sync"
)

// F16Bits rounds f to the nearest IEEE binary16 (ties to even).
func F16Bits(f float32) uint16 {
	b := math.Float32bits(f)
	sign := uint16(b>>16) & 0x8000
	exp := int32(b>>23&0xff) - 127 + 15
	man := b & 0x7fffff
	switch {
	case b&0x7fffffff > 0x7f800000:
		return sign | 0x7e00
	case exp >= 0x1f:
		return sign | 0x7c00
	case exp <= 0:
		if exp < -10 {
			return sign
		}
		man |= 0x800000
		shift := uint32(14 - exp)
		half := uint32(1) << (shift - 1)
		r := man >> shift
		if rem := man & (1<<shift - 1); rem > half || (rem == half && r&1 == 1) {
			r++
		}
		return sign | uint16(r)
	}
	r := uint32(exp)<<10 | man>>13
	if rem := man & 0x1fff; rem > 0x1000 || (rem == 0x1000 && r&1 == 1) {
		r++
	}
	return sign | uint16(r)
}

// F16Value decodes an IEEE binary16.
func F16Value(h uint16) float64 {
	sign := 1.0
	if h&0x8000 != 0 {
		sign = -1
	}
	exp, man := int(h>>10&0x1f), float64(h&0x3ff)
	switch exp {
	case 0:
		return sign * man * math.Ldexp(1, -24)
	case 0x1f:
		if man != 0 {
			return math.NaN()
		}
		return sign * math.Inf(1)
	}
	return sign * (1 + man/1024) * math.Ldexp(1, exp-15)
}

// bf16Bits rounds f to the nearest bfloat16 (ties to even; f finite).
func bf16Bits(f float32) uint16 {
	b := math.Float32bits(f)
	return uint16((b + 0x7fff + (b >> 16 & 1)) >> 16)
}

// bf16Value decodes a bfloat16.
func bf16Value(h uint16) float64 { return float64(math.Float32frombits(uint32(h) << 16)) }

// operand is a matrix as uploaded (raw bytes) and as the CPU sees it.
type operand struct {
	raw    []byte
	values []float64
}

// randomOperand draws n elements of type t from rng: floats uniform in
// [-1, 1) rounded to t, integers uniform over t's whole range. Chunks are
// drawn in parallel from streams seeded by rng, so the result depends only
// on rng's state.
func randomOperand(rng *rand.Rand, t ComponentType, n int) operand {
	op := operand{raw: make([]byte, n*t.Bytes()), values: make([]float64, n)}
	const chunk = 1 << 20
	var wg sync.WaitGroup
	for lo := 0; lo < n; lo += chunk {
		seed := rng.Uint64()
		wg.Add(1)
		go func() {
			defer wg.Done()
			fill(rand.New(rand.NewPCG(seed, uint64(lo))), t, op, lo, min(lo+chunk, n))
		}()
	}
	wg.Wait()
	return op
}

// fill draws elements lo…hi-1 of op.
func fill(rng *rand.Rand, t ComponentType, op operand, lo, hi int) {
	for i := lo; i < hi; i++ {
		x := float32(rng.Float64()*2 - 1)
		switch t {
		case Float32:
			binary.LittleEndian.PutUint32(op.raw[4*i:], math.Float32bits(x))
			op.values[i] = float64(x)
		case Float16:
			h := F16Bits(x)
			binary.LittleEndian.PutUint16(op.raw[2*i:], h)
			op.values[i] = F16Value(h)
		case BFloat16:
			h := bf16Bits(x)
			binary.LittleEndian.PutUint16(op.raw[2*i:], h)
			op.values[i] = bf16Value(h)
		case Uint8:
			v := uint8(rng.Uint32())
			op.raw[i], op.values[i] = v, float64(v)
		case Sint8:
			v := int8(rng.Uint32())
			op.raw[i], op.values[i] = byte(v), float64(v)
		}
	}
}

// decode reads element i of raw output of type t.
func decode(raw []byte, t ComponentType, i int) float64 {
	switch t {
	case Float32:
		return float64(math.Float32frombits(binary.LittleEndian.Uint32(raw[4*i:])))
	case Float16:
		return F16Value(binary.LittleEndian.Uint16(raw[2*i:]))
	case BFloat16:
		return bf16Value(binary.LittleEndian.Uint16(raw[2*i:]))
	case Uint32:
		return float64(binary.LittleEndian.Uint32(raw[4*i:]))
	case Sint32:
		return float64(int32(binary.LittleEndian.Uint32(raw[4*i:])))
	case Float64:
		return math.Float64frombits(binary.LittleEndian.Uint64(raw[8*i:]))
	}
	return math.NaN()
}

// unitRoundoff is the unit roundoff of a float type (0 for integers).
func unitRoundoff(t ComponentType) float64 {
	switch t {
	case Float16:
		return math.Ldexp(1, -11)
	case BFloat16:
		return math.Ldexp(1, -8)
	case Float32:
		return math.Ldexp(1, -24)
	case Float64:
		return math.Ldexp(1, -53)
	}
	return 0
}

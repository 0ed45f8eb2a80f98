package coopmat

import (
	"encoding/binary"
	"math"
	"math/rand/v2"
	"sync"

	"github.com/everycycle/appraise/coopmat/vk"
)

// operand is a matrix as uploaded (raw bytes) and as the CPU sees it.
type operand struct {
	raw    []byte
	values []float64
}

// randomOperand draws n elements of type t: floats uniform in [-1, 1)
// rounded to t, integers over t's whole range; the result depends only on
// rng's state.
func randomOperand(rng *rand.Rand, t vk.ComponentType, n int) operand {
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

func fill(rng *rand.Rand, t vk.ComponentType, op operand, lo, hi int) {
	for i := lo; i < hi; i++ {
		x := float32(rng.Float64()*2 - 1)
		switch t {
		case vk.Float32:
			binary.LittleEndian.PutUint32(op.raw[4*i:], math.Float32bits(x))
			op.values[i] = float64(x)
		case vk.Float16:
			h := vk.F16Bits(x)
			binary.LittleEndian.PutUint16(op.raw[2*i:], h)
			op.values[i] = vk.F16Value(h)
		case vk.BFloat16:
			h := vk.Bf16Bits(x)
			binary.LittleEndian.PutUint16(op.raw[2*i:], h)
			op.values[i] = vk.Bf16Value(h)
		case vk.Uint8:
			v := uint8(rng.Uint32())
			op.raw[i], op.values[i] = v, float64(v)
		case vk.Sint8:
			v := int8(rng.Uint32())
			op.raw[i], op.values[i] = byte(v), float64(v)
		}
	}
}

func decode(raw []byte, t vk.ComponentType, i int) float64 {
	switch t {
	case vk.Float32:
		return float64(math.Float32frombits(binary.LittleEndian.Uint32(raw[4*i:])))
	case vk.Float16:
		return vk.F16Value(binary.LittleEndian.Uint16(raw[2*i:]))
	case vk.BFloat16:
		return vk.Bf16Value(binary.LittleEndian.Uint16(raw[2*i:]))
	case vk.Uint32:
		return float64(binary.LittleEndian.Uint32(raw[4*i:]))
	case vk.Sint32:
		return float64(int32(binary.LittleEndian.Uint32(raw[4*i:])))
	case vk.Float64:
		return math.Float64frombits(binary.LittleEndian.Uint64(raw[8*i:]))
	}
	return math.NaN()
}

// unitRoundoff is the unit roundoff of a float type (0 for integers).
func unitRoundoff(t vk.ComponentType) float64 {
	switch t {
	case vk.Float16:
		return math.Ldexp(1, -11)
	case vk.BFloat16:
		return math.Ldexp(1, -8)
	case vk.Float32:
		return math.Ldexp(1, -24)
	case vk.Float64:
		return math.Ldexp(1, -53)
	}
	return 0
}

package cublaslt

import (
	"math"
	"math/rand/v2"
	"testing"
)

// The fp16 and bf16 shortcuts of fill round exactly as encode does,
// subnormals, ties and the carry into the exponent included.
func TestFastRounding(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	check := func(f float32) {
		if got, want := f16Bits(f), uint16(encode(F16, float64(f))); got != want {
			t.Fatalf("f16Bits(%g) = %#04x, want %#04x", f, got, want)
		}
		if got, want := bf16Bits(f), uint16(encode(BF16, float64(f))); got != want {
			t.Fatalf("bf16Bits(%g) = %#04x, want %#04x", f, got, want)
		}
	}
	for _, f := range []float32{0, -0.0, 1, -1, 0.99999994, 6.1035156e-05, 6.1005e-05, 5.9604645e-08, 2.9802322e-08, 1e-9,
		math.Float32frombits(0x3f801000), math.Float32frombits(0x3f803000), math.Float32frombits(0x3f7ff000)} {
		check(f)
	}
	for range 1 << 20 {
		check(float32(rng.Float64()*2 - 1))
		check(float32(math.Ldexp(rng.Float64()*2-1, -rng.IntN(30))))
	}
}

// Every small float type's draw (fp6 is not packed yet) stays within ±genRange and hits many
// distinct values.
func TestDrawTable(t *testing.T) {
	for _, ty := range []Type{F8E4M3, F8E5M2, F4E2M1, F16, BF16} {
		o := randomOperand(ty, 64, 256, 3)
		seen := map[uint64]bool{}
		for i := range 64 * 256 {
			v := value(o.raw, ty, i)
			if math.IsNaN(v) || math.Abs(v) > genRange(ty) {
				t.Fatalf("%v: element %d = %g outside ±%g", ty, i, v, genRange(ty))
			}
			seen[get(o.raw, ty, i)] = true
		}
		if want := min(1<<ty.Bits()/4, 1000); len(seen) < want {
			t.Errorf("%v: %d distinct values, want at least %d", ty, len(seen), want)
		}
	}
}

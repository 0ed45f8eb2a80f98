package gpu

import (
	"math"
	"math/big"
	"math/rand/v2"
	"testing"
)

// TestFMAF32DoubleRounding: float32(math.FMA(...)) rounds twice and can
// miss; fmaF32 rounds once. x*y + z = 1 + 2^-24 + 2^-70 is just above the
// float32 midpoint 1 + 2^-24, so the fp32 FMA is 1 + 2^-23, but float64
// rounds it to the midpoint first and the tie then goes to even, 1.
func TestFMAF32DoubleRounding(t *testing.T) {
	x, y, z := float32(1+0x1p-23), float32(1-0x1p-24), float32(0x1p-47+0x1p-70)
	if naive := float32(math.FMA(float64(x), float64(y), float64(z))); naive != 1 {
		t.Fatalf("the naive double rounding gave %v; the example no longer shows it", naive)
	}
	if got := fmaF32(x, y, z); got != float32(1+0x1p-23) {
		t.Errorf("fmaF32 = %v, want 1+2^-23", got)
	}
}

// TestFMAF32MatchesExact compares fmaF32 with exact arithmetic on random
// operands, many of them near ties.
func TestFMAF32MatchesExact(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 20000; i++ {
		x := math.Float32frombits(rng.Uint32() & 0x3FFFFFFF)
		y := math.Float32frombits(rng.Uint32() & 0x3FFFFFFF)
		z := float32(math.Ldexp(float64(rng.Int32N(1<<24)), -int(rng.IntN(60))-24))
		if rng.IntN(2) == 0 {
			z = -z
		}
		exact := new(big.Float).SetPrec(1024).Mul(big.NewFloat(float64(x)), big.NewFloat(float64(y)))
		exact.Add(exact, big.NewFloat(float64(z)))
		want, _ := exact.Float32()
		if got := fmaF32(x, y, z); got != want {
			t.Fatalf("fmaF32(%v, %v, %v) = %v, want %v", x, y, z, got, want)
		}
	}
}

// stepFloat runs one fp32 chain FMA by FMA from offset off through pairs
// pairs and returns the final value.
func stepFloat(pairs int64, off uint32) float64 {
	g := gridF32
	x := float32(float64(floatBase(pairs)+int64(off)) * g)
	for j := int64(0); j < pairs; j++ {
		x = fmaF32(fmaF32(x, floatA, float32(6*g)), floatC, float32(-2*g))
	}
	return float64(x)
}

// TestFloatClosedForm steps fp32 chains FMA by FMA and compares with the
// closed form the reference uses.
func TestFloatClosedForm(t *testing.T) {
	for _, iters := range []uint32{1, 5, 300} {
		pairs := int64(iters) * pairsPerTrip
		for _, off := range []uint32{0, 1, 255, 511} {
			got := stepFloat(pairs, off)
			want := float64(floatBase(pairs)+int64(off)+pairs) * gridF32
			if got != want {
				t.Errorf("%d trips, offset %d: stepped %v, closed form %v", iters, off, got, want)
			}
		}
	}
	if aluF32.maxIters() != aluMaxIters || aluI32.maxIters() != aluMaxIters {
		t.Errorf("caps: fp32 %d, int32 %d", aluF32.maxIters(), aluI32.maxIters())
	}
}

// TestFloatTable checks the folded table against a direct fold, and that
// it changes with the loop count.
func TestFloatTable(t *testing.T) {
	tab := floatTable(4)
	pairs := int64(4 * pairsPerTrip)
	h := fnvBasis
	for c := uint32(0); c < 8; c++ {
		for l := uint32(0); l < 4; l++ {
			v := float32(float64(floatBase(pairs)+int64(floatOffset(21, c, l))+pairs) * gridF32)
			h = fnv(h, math.Float32bits(v))
		}
	}
	if tab[21%16] != h {
		t.Errorf("table %#x, direct %#x", tab[5], h)
	}
	if floatTable(5) == tab {
		t.Error("table does not depend on the loop count")
	}
}

// TestI32ClosedForm: the matrix power equals stepping the rounds.
func TestI32ClosedForm(t *testing.T) {
	const rounds = 1000
	m := i32Round(i32Mult).pow(rounds)
	for _, i := range []uint32{0, 1, 12345, 1<<24 - 1} {
		h := fnvBasis
		for c := uint32(0); c < i32Chains; c++ {
			var xs, ys []uint32
			for l := uint32(0); l < i32Lanes; l++ {
				x, y := i32Start(i, c, l)
				for range rounds {
					x = x*i32Mult + y
					y = y*i32Mult + x
				}
				xs, ys = append(xs, x), append(ys, y)
			}
			for _, w := range append(xs, ys...) {
				h = fnv(h, w)
			}
		}
		if got := i32Output(i, m); got != h {
			t.Errorf("invocation %d: closed form %#x, stepped %#x", i, got, h)
		}
	}
}

// TestI32MatrixOrder: the round's matrix has order above 2^24, so distinct
// round counts up to that give distinct matrices. Its order divides
// |GL2(Z/2^32)| = 6 * 2^124, so it is 2^e, 3*2^e or 6*2^e... with e large
// unless some 6*2^24-th power is the identity.
func TestI32MatrixOrder(t *testing.T) {
	id := mat2{1, 0, 0, 1}
	m := i32Round(i32Mult)
	if m.pow(6<<24) == id || m.pow(3<<24) == id || m.pow(1<<25) == id {
		t.Fatal("the int32 round matrix has a small order")
	}
	if m.pow(5).mul(m.pow(7)) != m.pow(12) {
		t.Error("pow is not a power")
	}
}

// TestALUParams: the uniforms carry exactly the constants the references
// assume.
func TestALUParams(t *testing.T) {
	p := aluParams(aluF32, 10, 7)
	w := func(i int) uint32 {
		return uint32(p[4*i]) | uint32(p[4*i+1])<<8 | uint32(p[4*i+2])<<16 | uint32(p[4*i+3])<<24
	}
	f := func(i int) float64 { return float64(math.Float32frombits(w(i))) }
	if len(p) != 32 || w(0) != 10 || w(1) != 7 || f(2) != 2 || f(3) != 0.5 || f(4) != 6*gridF32 || f(5) != -2*gridF32 ||
		f(6) != float64(floatBase(80))*gridF32 || f(7) != gridF32 {
		t.Errorf("fp32 params % x", p)
	}
	if len(aluParams(aluI32, 1, 1)) != 16 {
		t.Error("int32 params length")
	}
}

package gpu

import (
	"math"
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/everycycle/appraise/internal/measure/packed"
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

// stepFloat runs one float chain pair by pair, each FMA through round
// (an fp32 FMA, or a check that the exact result fits fp16), from offset
// off through pairs pairs, and returns the final value.
func stepFloat(t *testing.T, k aluKind, pairs int64, off uint32) float64 {
	g := floatGrid(k)
	x := float64(floatBase(pairs)+int64(off)) * g
	round := func(a, b, c float64) float64 {
		if k == aluF32 {
			return float64(fmaF32(float32(a), float32(b), float32(c)))
		}
		r := a*b + c // exact in float64 for these values
		if !exactF16(r) {
			t.Fatalf("fp16 intermediate %v is not exact", r)
		}
		return r
	}
	for j := int64(0); j < pairs; j++ {
		x = round(round(x, floatA, 6*g), floatC, -2*g)
	}
	return x
}

// exactF16 reports whether v is exactly a normal fp16 value (or zero).
func exactF16(v float64) bool {
	if v == 0 {
		return true
	}
	frac, exp := math.Frexp(math.Abs(v)) // v = frac * 2^exp, frac in [0.5, 1)
	return exp-1 >= -14 && exp-1 <= 15 && frac*(1<<11) == math.Trunc(frac*(1<<11))
}

// TestFloatClosedForm steps float chains FMA by FMA and compares with the
// closed form the reference uses, for small loop counts and, for fp16, at
// the largest count maxIters allows (every intermediate must stay exact).
func TestFloatClosedForm(t *testing.T) {
	for _, c := range []struct {
		k     aluKind
		iters uint32
	}{{aluF32, 1}, {aluF32, 5}, {aluF16, 3}, {aluF16, aluF16.maxIters()}} {
		pairs := int64(c.iters) * pairsPerTrip
		for _, off := range []uint32{0, 1, 255, 511} {
			got := stepFloat(t, c.k, pairs, off)
			want := float64(floatBase(pairs)+int64(off)+pairs) * floatGrid(c.k)
			if got != want {
				t.Errorf("kind %d, %d trips, offset %d: stepped %v, closed form %v", c.k, c.iters, off, got, want)
			}
		}
	}
	// One trip more than fp16's cap leaves its exact range.
	k, beyond := aluF16, int64(aluF16.maxIters()+1)*pairsPerTrip
	top := float64(-floatBase(beyond)+3) * 2 // (k+3) in units of 2g at the last chain's top
	if top <= 1<<11 && top*floatGrid(k)*2 <= 65504 {
		t.Errorf("fp16 cap %d is not tight: %d trips still fit", aluF16.maxIters(), aluF16.maxIters()+1)
	}
	if aluF16.maxIters() < aluMinIters || aluF32.maxIters() != aluMaxIters {
		t.Errorf("caps: fp16 %d, fp32 %d", aluF16.maxIters(), aluF32.maxIters())
	}
}

// TestFloatTable checks the folded table against a direct fold, and that
// it changes with the loop count.
func TestFloatTable(t *testing.T) {
	tab := floatTable(gridF32, 4)
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
	if floatTable(gridF32, 5) == tab {
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

// TestDot4Weights: the weights are what the table says (the dot products
// themselves are tested in internal/packed).
func TestDot4Weights(t *testing.T) {
	if packed.Dot4I8(dotWI8, 0x01010101) != 3-5+7-11 || packed.Dot4U8(dotWU8, 0x01010101) != 3+5+7+11 {
		t.Error("packed weights")
	}
}

// TestDotChainsDoNotCycle: a Feistel round is a permutation, so a chain
// that came back to a state would come back to its start; none does
// within 2^20 rounds, four times dotMaxIters' worth.
func TestDotChainsDoNotCycle(t *testing.T) {
	for _, signed := range []bool{true, false} {
		w := dotWU8
		if signed {
			w = dotWI8
		}
		for _, sc := range [][2]uint32{{0, 0}, {63, 15}} {
			a0, b0 := dotStart(sc[0], sc[1])
			a, b := a0, b0
			for n := 1; n <= 1<<20; n++ {
				a, b = packed.DotRound(a, b, w, signed)
				if a == a0 && b == b0 {
					t.Fatalf("signed %t, start %v: back at the start after %d rounds", signed, sc, n)
				}
			}
		}
	}
	if 1<<20 < 4*dotMaxIters*dotRoundsPerTrip {
		t.Error("cycle test shorter than the longest dispatch")
	}
}

// TestDotTable: the table is per class, depends on the loop count, and its
// classes differ.
func TestDotTable(t *testing.T) {
	tab := dotTable(true, 2)
	h := fnvBasis
	for c := uint32(0); c < dotChains; c++ {
		a, b := dotStart(9, c)
		for range 2 * dotRoundsPerTrip {
			a, b = packed.DotRound(a, b, dotWI8, true)
		}
		h = fnv(fnv(h, a), b)
	}
	if tab[9] != h {
		t.Errorf("class 9: table %#x, stepped %#x", tab[9], h)
	}
	if dotTable(true, 3) == tab || dotTable(false, 2) == tab || tab[0] == tab[1] {
		t.Error("dot table does not depend on what it should")
	}
	want := aluReference(aluDotI8, 2)
	if want(9) != tab[9] || want(64+9) != tab[9] {
		t.Error("reference does not index classes mod 64")
	}
}

// TestALUParams: the uniforms carry exactly the constants the references
// assume.
func TestALUParams(t *testing.T) {
	p := aluParams(aluF16, 10, 7)
	w := func(i int) uint32 {
		return uint32(p[4*i]) | uint32(p[4*i+1])<<8 | uint32(p[4*i+2])<<16 | uint32(p[4*i+3])<<24
	}
	f := func(i int) float64 { return float64(math.Float32frombits(w(i))) }
	if len(p) != 32 || w(0) != 10 || w(1) != 7 || f(2) != 2 || f(3) != 0.5 || f(4) != 6*gridF16 || f(5) != -2*gridF16 ||
		f(6) != float64(floatBase(80))*gridF16 || f(7) != gridF16 {
		t.Errorf("fp16 params % x", p)
	}
	if !exactF16(f(6)) {
		t.Error("fp16 base not exact in fp16")
	}
	for _, k := range []aluKind{aluI32, aluDotI8, aluDotU8} {
		if len(aluParams(k, 1, 1)) != 16 {
			t.Errorf("kind %d params length", k)
		}
	}
}

package vulkan

import (
	"math"
	"math/rand/v2"
	"testing"
)

func TestF16RoundTrip(t *testing.T) {
	cases := []struct {
		in   float32
		bits uint16
	}{
		{1, 0x3c00}, {-2, 0xc000}, {0.5, 0x3800}, {65504, 0x7bff}, {1e6, 0x7c00},
		{float32(math.Ldexp(1, -24)), 0x0001}, {float32(math.Ldexp(1, -14)), 0x0400},
		{1 + 1.0/2048, 0x3c00}, // tie rounds to even
		{1 + 3.0/2048, 0x3c02},
	}
	for _, c := range cases {
		if got := F16Bits(c.in); got != c.bits {
			t.Errorf("f16Bits(%g) = %#04x, want %#04x", c.in, got, c.bits)
		}
	}
	for h := range uint32(0x7c00) {
		if got := F16Bits(float32(F16Value(uint16(h)))); got != uint16(h) {
			t.Fatalf("round trip of %#04x gave %#04x", h, got)
		}
	}
}

func TestBF16(t *testing.T) {
	if got := bf16Bits(1); got != 0x3f80 {
		t.Errorf("bf16Bits(1) = %#04x", got)
	}
	if got := bf16Value(bf16Bits(-3.5)); got != -3.5 {
		t.Errorf("bf16 round trip of -3.5 = %g", got)
	}
}

func TestRandomOperandDeterministic(t *testing.T) {
	a := randomOperand(rand.New(rand.NewPCG(1, 2)), Float16, 3<<20)
	b := randomOperand(rand.New(rand.NewPCG(1, 2)), Float16, 3<<20)
	if string(a.raw) != string(b.raw) {
		t.Fatal("same seed gave different operands")
	}
}

func TestGEMMCheckCatchesErrors(t *testing.T) {
	const n = 8
	rng := rand.New(rand.NewPCG(5, 5))
	a, bt := randomOperand(rng, Sint8, n*n), randomOperand(rng, Sint8, n*n)
	raw := make([]byte, 4*n*n)
	for i := range n {
		for j := range n {
			s := int32(0)
			for k := range n {
				s += int32(a.values[i*n+k] * bt.values[j*n+k])
			}
			putU32(raw[4*(i*n+j):], uint32(s))
		}
	}
	g := gemmCheck{m: n, n: n, k: n, a: a.values, bt: bt.values, acc: Sint32, out: Sint32}
	if c, err := g.run(raw); err != nil || c.Elements != n*n || c.MaxError != 0 {
		t.Fatalf("exact integer GEMM: %+v, %v", c, err)
	}
	raw[4*9]++ // off by one in one element
	if _, err := g.run(raw); err == nil {
		t.Fatal("integer check accepted an off-by-one element")
	}
}

func putU32(b []byte, v uint32) {
	b[0], b[1], b[2], b[3] = byte(v), byte(v>>8), byte(v>>16), byte(v>>24)
}

package vk

import (
	"math"
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
	if got := Bf16Bits(1); got != 0x3f80 {
		t.Errorf("bf16Bits(1) = %#04x", got)
	}
	if got := Bf16Value(Bf16Bits(-3.5)); got != -3.5 {
		t.Errorf("bf16 round trip of -3.5 = %g", got)
	}
}

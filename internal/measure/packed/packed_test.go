package packed

import "testing"

func TestDot4(t *testing.T) {
	if got := Dot4I8(0xFF02807F, 0x01FF0203); got != 127*3+(-128)*2+2*(-1)+(-1)*1 {
		t.Errorf("Dot4I8 = %d", got)
	}
	if got := Dot4U8(0xFF02807F, 0x01FF0203); got != 127*3+128*2+2*255+255*1 {
		t.Errorf("Dot4U8 = %d", got)
	}
	if got := Dot4I8(0x80FF7F01, 0x80FF7F01); got != 128*128+1+127*127+1 {
		t.Errorf("Dot4I8 of (1, 127, -1, -128) with itself = %d", got)
	}
	if got := Dot4U8(0x0B070503, 0xFFFFFFFF); got != 255*(3+5+7+11) {
		t.Errorf("Dot4U8(w, 255s) = %d", got)
	}
	a, b := uint32(0x12345678), uint32(0x9ABCDEF0)
	for _, signed := range []bool{true, false} {
		a2, b2 := DotRound(a, b, 0x0B070503, signed)
		wantA := a + Dot4U8(b, 0x0B070503)
		if signed {
			wantA = a + uint32(Dot4I8(b, 0x0B070503))
		}
		if a2 != wantA {
			t.Errorf("signed %t: a = %#x, want %#x", signed, a2, wantA)
		}
		wantB := b + Dot4U8(a2, 0x0B070503)
		if signed {
			wantB = b + uint32(Dot4I8(a2, 0x0B070503))
		}
		if b2 != wantB {
			t.Errorf("signed %t: b = %#x, want %#x", signed, b2, wantB)
		}
	}
}

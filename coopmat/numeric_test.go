package coopmat

import (
	"math/rand/v2"
	"testing"

	"github.com/everycycle/appraise/coopmat/vk"
)

func TestRandomOperandDeterministic(t *testing.T) {
	a := randomOperand(rand.New(rand.NewPCG(1, 2)), vk.Float16, 3<<20)
	b := randomOperand(rand.New(rand.NewPCG(1, 2)), vk.Float16, 3<<20)
	if string(a.raw) != string(b.raw) {
		t.Fatal("same seed gave different operands")
	}
}

func TestGEMMCheckCatchesErrors(t *testing.T) {
	const n = 8
	rng := rand.New(rand.NewPCG(5, 5))
	a, bt := randomOperand(rng, vk.Sint8, n*n), randomOperand(rng, vk.Sint8, n*n)
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
	g := gemmCheck{m: n, n: n, k: n, a: a.values, bt: bt.values, acc: vk.Sint32, out: vk.Sint32}
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

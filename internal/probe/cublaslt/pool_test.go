package cublaslt

import (
	"bytes"
	"testing"
)

// Precisions sharing an input type multiply the same operands, drawn
// once; A and Bᵀ of one type are different draws; a key dropped by keep
// is drawn again the same way.
func TestOperandPool(t *testing.T) {
	pool := newOperandPool(7)
	defer pool.wait()
	fp16, _ := LookupPrecision("fp16")
	fp16out, _ := LookupPrecision("fp16_fp32out")
	k1, k2 := operands(fp16, 64, 32, 96), operands(fp16out, 64, 32, 96)
	if k1 != k2 {
		t.Fatalf("fp16 and fp16_fp32out have different operand keys %v, %v", k1, k2)
	}
	pool.start(k1[:]...)
	a := pool.get(k1[0])
	if again := pool.get(k2[0]); &again.raw[0] != &a.raw[0] {
		t.Error("the same key was drawn twice")
	}
	b := pool.get(k1[1])
	if a.rows != 64 || a.cols != 96 || b.rows != 32 || b.cols != 96 {
		t.Fatalf("shapes: A %d×%d, Bᵀ %d×%d; want 64×96 and 32×96", a.rows, a.cols, b.rows, b.cols)
	}
	if bytes.Equal(a.raw[:32*96*2], b.raw) {
		t.Error("A and Bᵀ are the same draw")
	}
	pool.keep(k1[1])
	a2 := pool.get(k1[0])
	if &a2.raw[0] == &a.raw[0] {
		t.Error("keep did not drop A")
	}
	if !bytes.Equal(a2.raw, a.raw) {
		t.Error("a key drawn again gave different values")
	}
	if other := pool.get(operandKey{t: F16, rows: 64, cols: 96, role: roleA}); !bytes.Equal(other.raw, a.raw) {
		t.Error("the operand depends on more than its key and the seed")
	}
	if diff := newOperandPool(8).get(k1[0]); bytes.Equal(diff.raw, a.raw) {
		t.Error("another seed drew the same operand")
	}
}

// turnTo keeps the current precision's operands and the next one's, being
// drawn, and forgets the precision before: after each turn the pool holds
// those four operands and no others.
func TestOperandPoolTurnTo(t *testing.T) {
	pool := newOperandPool(7)
	defer pool.wait()
	var precs []Precision
	for _, name := range []string{"fp16", "fp64", "int8"} {
		p, _ := LookupPrecision(name)
		precs = append(precs, p)
	}
	held := func() map[operandKey]bool {
		pool.mu.Lock()
		defer pool.mu.Unlock()
		m := map[operandKey]bool{}
		for k := range pool.drawn {
			m[k] = true
		}
		return m
	}
	for i := range precs {
		cur := pool.turnTo(precs, i, 64, 32, 96)
		if cur != operands(precs[i], 64, 32, 96) {
			t.Fatalf("precision %d: keys %v, want %s's", i, cur, precs[i].Name)
		}
		pool.get(cur[0]) // what a GEMM of precision i draws, if the turn before did not
		pool.get(cur[1])
		want := map[operandKey]bool{cur[0]: true, cur[1]: true}
		if i+1 < len(precs) {
			next := operands(precs[i+1], 64, 32, 96)
			want[next[0]], want[next[1]] = true, true
		}
		if got := held(); len(got) != len(want) {
			t.Errorf("precision %d: pool holds %v, want %v", i, got, want)
		} else {
			for k := range want {
				if !got[k] {
					t.Errorf("precision %d: pool lacks %v", i, k)
				}
			}
		}
	}
}

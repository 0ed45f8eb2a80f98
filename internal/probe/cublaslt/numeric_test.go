package cublaslt

import (
	"errors"
	"math"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

func TestEncodeKnown(t *testing.T) {
	for _, c := range []struct {
		t    Type
		x    float64
		want uint64
	}{
		{F8E4M3, 1, 0x38}, {F8E4M3, 448, 0x7e}, {F8E4M3, 1000, 0x7e}, {F8E4M3, -2, 0xc0},
		{F8E4M3, 0x1p-9, 0x01}, {F8E4M3, 0x1p-10, 0x00}, {F8E4M3, 3 * 0x1p-10, 0x02},
		{F8E5M2, 1, 0x3c}, {F8E5M2, 57344, 0x7b}, {F8E5M2, 0x1p-16, 0x01},
		{F4E2M1, 0.5, 1}, {F4E2M1, 1, 2}, {F4E2M1, 1.5, 3}, {F4E2M1, 3, 5}, {F4E2M1, 5, 6}, {F4E2M1, 6, 7}, {F4E2M1, -6, 0xf},
		{F6E2M3, 7.5, 0x1f}, {F6E3M2, 28, 0x1f},
		{F16, 1, 0x3c00}, {F16, 65504, 0x7bff}, {F16, 0x1p-24, 1}, {F16, 1 + 0x1p-11, 0x3c00}, {F16, 1 + 3*0x1p-11, 0x3c02},
		{BF16, 1, 0x3f80}, {BF16, -3, 0xc040},
		{TF32, 1 + 0x1p-11, 0x3f800000}, {TF32, 1 + 3*0x1p-11, 0x3f804000},
	} {
		if got := encode(c.t, c.x); got != c.want {
			t.Errorf("encode(%v, %g) = %#x, want %#x", c.t, c.x, got, c.want)
		}
	}
	if !math.IsNaN(decode(F8E4M3, 0x7f)) || !math.IsInf(decode(F8E5M2, 0x7c), 1) || !math.IsInf(decode(F16, 0xfc00), -1) {
		t.Error("special values decoded wrong")
	}
}

// Every finite pattern of the small types survives decode then encode.
func TestRoundTrip(t *testing.T) {
	for _, ty := range []Type{F16, BF16, F8E4M3, F8E5M2, F6E2M3, F6E3M2, F4E2M1} {
		for b := range uint64(1) << ty.Bits() {
			v := decode(ty, b)
			if math.IsNaN(v) || math.IsInf(v, 0) {
				continue
			}
			if got := encode(ty, v); got != b {
				t.Fatalf("%v: %#x → %g → %#x", ty, b, v, got)
			}
		}
	}
}

// Packed 4-bit elements go two to a byte, the even one in the low nibble.
func TestPutGetNibbles(t *testing.T) {
	raw := make([]byte, 2)
	for i, v := range []uint64{1, 0xf, 7, 2} {
		put(raw, F4E2M1, i, v)
	}
	if raw[0] != 0xf1 || raw[1] != 0x27 || get(raw, F4E2M1, 1) != 0xf {
		t.Errorf("raw %x", raw)
	}
}

// randomOperand depends only on its seed and shape.
func TestRandomOperandDeterministic(t *testing.T) {
	a, b := randomOperand(F8E4M3, 130, 64, 9), randomOperand(F8E4M3, 130, 64, 9)
	c := randomOperand(F8E4M3, 130, 64, 10)
	if !slices.Equal(a.raw, b.raw) || slices.Equal(a.raw, c.raw) {
		t.Error("operands do not follow their seed")
	}
	for i := range 130 * 64 {
		if v := value(a.raw, F8E4M3, i); !(math.Abs(v) <= 1) {
			t.Fatalf("element %d = %g", i, v)
		}
	}
}

// exactD computes D column-major in float64 and stores it as g.p.Out,
// optionally leaving out K block [drop, drop+32) for column 0.
func exactD(g gemm, drop int) []byte {
	out := make([]byte, g.p.Out.rowBytes(g.m*g.n))
	for i := range g.m {
		for j := range g.n {
			s := 0.0
			for k := range g.k {
				if j == 0 && drop >= 0 && k >= drop && k < drop+32 {
					continue
				}
				s += g.a.at(i, k) * g.bt.at(j, k)
			}
			put(out, g.p.Out, i+j*g.m, encode(g.p.Out, s))
		}
	}
	return out
}

// The check passes the exact product and refuses one that lost a block of K.
func TestCheckCatchesDroppedBlock(t *testing.T) {
	p, _ := LookupPrecision("fp16_fp32acc")
	g := gemm{p: p, m: 64, n: 32, k: 1024, a: randomOperand(F16, 64, 1024, 1), bt: randomOperand(F16, 32, 1024, 2)}
	c, err := g.check(exactD(g, -1), 1, 0)
	if err != nil || c.Checked != 64*32 || c.Worst > 1 {
		t.Fatalf("exact product: %v, %+v", err, c)
	}
	if _, err := g.check(exactD(g, 512), 1, 0); !errors.Is(err, ErrCheckFailed) {
		t.Fatalf("dropped block: err = %v", err)
	}
	p, _ = LookupPrecision("int8")
	g = gemm{p: p, m: 32, n: 32, k: 64, a: randomOperand(I8, 32, 64, 1), bt: randomOperand(I8, 32, 64, 2)}
	d := exactD(g, -1)
	if c, err := g.check(d, 1, 0); err != nil || c.Tolerance != 0 {
		t.Fatalf("int8: %v %+v", err, c)
	}
	put(d, I32, 5, get(d, I32, 5)+1)
	if c, err := g.check(d, 1, 0); !errors.Is(err, ErrCheckFailed) || c.Bad != 5 {
		t.Fatalf("int8 off by one: %v %+v", err, c)
	}
}

// Large problems are checked on whole sampled rows and columns.
func TestCheckSamplesLargeProblems(t *testing.T) {
	g := gemm{m: 512, n: 256, k: 1024}
	if n := len(g.elements(2, 3)); n != 2*(512+256)+scatteredChecks {
		t.Errorf("%d elements", n)
	}
}

// The search looks in CUDA toolkits and pip wheels under the root, .so.13
// before .so.12, after the explicit path, the environment and the loader.
func TestCandidates(t *testing.T) {
	root := t.TempDir()
	files := []string{
		"usr/local/cuda-12.4/lib64/libcublasLt.so.12",
		"usr/local/cuda-13.0/targets/x86_64-linux/lib/libcublasLt.so.13",
		"usr/local/lib/python3.12/dist-packages/nvidia/cu13/lib/libcublasLt.so.13",
		"home/u/.local/lib/python3.11/site-packages/nvidia/cublas/lib/libcublasLt.so.12",
		"opt/conda/lib/python3.10/site-packages/nvidia/cublas/lib/libcublasLt.so.12",
		"usr/local/lib/python3.12/dist-packages/nvidia/cublas/lib/libcublas.so.12",
	}
	for _, f := range files {
		p := filepath.Join(root, f)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	env := map[string]string{"HOME": "/home/u"}
	o := LoadOptions{Root: root, Getenv: func(k string) string { return env[k] }}
	var got []string
	for _, c := range o.candidates() {
		got = append(got, c.source+" "+c.path)
	}
	want := []string{
		"loader libcublasLt.so.13", "loader libcublasLt.so.12",
		"search " + filepath.Join(root, files[1]), "search " + filepath.Join(root, files[2]),
		"search " + filepath.Join(root, files[0]), "search " + filepath.Join(root, files[4]),
		"search " + filepath.Join(root, files[3]),
	}
	if !slices.Equal(got, want) {
		t.Errorf("candidates\n got %q\nwant %q", got, want)
	}
	env[EnvLibrary] = "/x/libcublasLt.so.13"
	if c := o.candidates(); len(c) != 1 || c[0].source != "env" {
		t.Errorf("env: %v", c)
	}
	o.Path = "/y/libcublasLt.so.12"
	if c := o.candidates(); len(c) != 1 || c[0] != (candidate{"/y/libcublasLt.so.12", "option"}) {
		t.Errorf("explicit: %v", c)
	}
}

// at is element (r, c) as a float64.
func (o operand) at(r, c int) float64 { return value(o.raw, o.t, r*o.cols+c) }

package cublaslt

import "fmt"

// Scaling is how a precision's inputs are scaled, vendor-neutral.
type Scaling uint8

// The scalings: none, one fp32 scale per input tensor, or one scale per 16
// (e4m3) or 32 (power-of-two e8m0) elements along K.
const (
	ScaleNone Scaling = iota
	ScaleTensor
	ScaleBlock16UE4M3
	ScaleBlock32UE8M0
)

// String names the scaling, e.g. "block32_ue8m0".
func (s Scaling) String() string {
	return [...]string{"none", "tensor_fp32", "block16_ue4m3", "block32_ue8m0"}[s]
}

// Block is the number of K elements sharing one scale (0: not block-scaled).
func (s Scaling) Block() int {
	switch s {
	case ScaleBlock16UE4M3:
		return 16
	case ScaleBlock32UE8M0:
		return 32
	}
	return 0
}

// Precision is one GEMM type combination: D (Out) = A·B with products
// accumulated in Acc. Name is its key in reports, e.g. "fp16_fp32acc".
type Precision struct {
	Name    string
	A, B    Type
	Out     Type
	Acc     Type
	Scaling Scaling
	// Packed is false where the probe cannot lay out the inputs; an
	// offered combination is then StatusNotRun.
	Packed bool
}

// String describes the combination, e.g. "fp16×fp16→fp16 (fp32 acc)".
func (p Precision) String() string {
	s := fmt.Sprintf("%v×%v→%v (%v acc)", p.A, p.B, p.Out, p.Acc)
	if p.Scaling != ScaleNone {
		s += " " + p.Scaling.String()
	}
	return s
}

// Precisions is every combination the probe asks the library about, in
// the order it runs them.
func Precisions() []Precision {
	p := func(name string, a, b, out, acc Type, s Scaling) Precision {
		return Precision{Name: name, A: a, B: b, Out: out, Acc: acc, Scaling: s, Packed: true}
	}
	list := []Precision{
		p("fp8_e4m3", F8E4M3, F8E4M3, BF16, F32, ScaleTensor),
		p("fp8_e5m2_e4m3", F8E5M2, F8E4M3, BF16, F32, ScaleTensor),
		p("fp8_e5m2", F8E5M2, F8E5M2, BF16, F32, ScaleTensor),
		p("fp16", F16, F16, F16, F16, ScaleNone),
		p("fp16_fp32acc", F16, F16, F16, F32, ScaleNone),
		p("fp16_fp32out", F16, F16, F32, F32, ScaleNone),
		p("bf16", BF16, BF16, BF16, F32, ScaleNone),
		p("bf16_fp32out", BF16, BF16, F32, F32, ScaleNone),
		p("tf32", TF32, TF32, F32, F32, ScaleNone),
		p("int8", I8, I8, I32, I32, ScaleNone),
		p("fp64", F64, F64, F64, F64, ScaleNone),
		p("mxfp8_e4m3", F8E4M3, F8E4M3, BF16, F32, ScaleBlock32UE8M0),
		p("nvfp4", F4E2M1, F4E2M1, BF16, F32, ScaleBlock16UE4M3),
		p("mxfp4", F4E2M1, F4E2M1, BF16, F32, ScaleBlock32UE8M0),
		p("mxfp6_e2m3", F6E2M3, F6E2M3, BF16, F32, ScaleBlock32UE8M0),
		p("mxfp6_e3m2", F6E3M2, F6E3M2, BF16, F32, ScaleBlock32UE8M0),
	}
	list[len(list)-2].Packed, list[len(list)-1].Packed = false, false
	return list
}

// LookupPrecision returns the named precision of Precisions.
func LookupPrecision(name string) (Precision, bool) {
	for _, p := range Precisions() {
		if p.Name == name {
			return p, true
		}
	}
	return Precision{}, false
}

// accRoundoff is the per-addition rounding the check allows the
// accumulator, and its slack; narrow float inputs get 2^-14.
func (p Precision) accRoundoff() (u, slack float64) {
	switch {
	case p.Acc.Integer():
		return 0, 0
	case p.Acc == F16:
		return F16.UnitRoundoff(), 8
	case p.A.Bits() <= 8 && p.A != I8:
		return 1.0 / (1 << 14), 8
	}
	return p.Acc.UnitRoundoff(), 32
}

// MarshalText writes the scaling's name.
func (s Scaling) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

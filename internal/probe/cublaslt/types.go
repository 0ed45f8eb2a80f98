package cublaslt

import "math"

// Type is a GEMM element type, named as the card names input types.
type Type uint8

const (
	F64    Type = iota + 1 // IEEE binary64
	F32                    // IEEE binary32
	TF32                   // binary32 storage, 10-bit mantissa (inputs rounded to it)
	F16                    // IEEE binary16
	BF16                   // bfloat16
	F8E4M3                 // OCP fp8 e4m3 (no infinities, max 448)
	F8E5M2                 // OCP fp8 e5m2 (IEEE-like, max 57344)
	F6E2M3                 // OCP fp6 e2m3 (max 7.5)
	F6E3M2                 // OCP fp6 e3m2 (max 28)
	F4E2M1                 // OCP fp4 e2m1 (max 6), two to a byte
	I8                     // signed 8-bit integer
	I32                    // signed 32-bit integer
)

// format describes a type's encoding: a binary float or an integer.
type format struct {
	name    string
	bits    int  // in memory
	integer bool // two's complement
	exp     int
	man     int
	ieee    bool // all-ones exponent is inf/NaN; e4m3 has only S.1111.111 NaN
	maxVal  float64
}

// formats is indexed by Type.
var formats = [...]format{
	F64:    {name: "fp64", bits: 64, exp: 11, man: 52, ieee: true, maxVal: math.MaxFloat64},
	F32:    {name: "fp32", bits: 32, exp: 8, man: 23, ieee: true, maxVal: math.MaxFloat32},
	TF32:   {name: "tf32", bits: 32, exp: 8, man: 10, ieee: true, maxVal: math.MaxFloat32},
	F16:    {name: "fp16", bits: 16, exp: 5, man: 10, ieee: true, maxVal: 65504},
	BF16:   {name: "bf16", bits: 16, exp: 8, man: 7, ieee: true, maxVal: 3.3895313892515355e38},
	F8E4M3: {name: "fp8_e4m3", bits: 8, exp: 4, man: 3, maxVal: 448},
	F8E5M2: {name: "fp8_e5m2", bits: 8, exp: 5, man: 2, ieee: true, maxVal: 57344},
	F6E2M3: {name: "fp6_e2m3", bits: 6, exp: 2, man: 3, maxVal: 7.5},
	F6E3M2: {name: "fp6_e3m2", bits: 6, exp: 3, man: 2, maxVal: 28},
	F4E2M1: {name: "fp4_e2m1", bits: 4, exp: 2, man: 1, maxVal: 6},
	I8:     {name: "int8", bits: 8, integer: true},
	I32:    {name: "int32", bits: 32, integer: true},
}

// String is the type's name on the card, e.g. "fp8_e4m3".
func (t Type) String() string {
	if int(t) < len(formats) && formats[t].name != "" {
		return formats[t].name
	}
	return "unknown"
}

// Integer reports whether t is an integer type (checked exactly).
func (t Type) Integer() bool { return formats[t].integer }

// Bits is the storage size of one element in bits.
func (t Type) Bits() int { return formats[t].bits }

// UnitRoundoff is the largest relative error of rounding to t (0 for integers).
func (t Type) UnitRoundoff() float64 {
	f := formats[t]
	if f.integer {
		return 0
	}
	return math.Ldexp(1, -f.man-1)
}

// rowBytes is the size in bytes of n elements of t (n even for 4-bit types).
func (t Type) rowBytes(n int) int { return n * t.Bits() / 8 }

// MarshalText writes the type's name.
func (t Type) MarshalText() ([]byte, error) { return []byte(t.String()), nil }

package cpu

/*
#cgo CFLAGS: -O2 -Wall
#include "kernels.h"
*/
import "C"

import (
	"fmt"
	"unsafe"
)

// isa is one compiled code path of the FMA kernels.
type isa int

// The ISA paths of kernels.h; which exist depends on GOARCH.
const (
	isaScalar  isa = C.CB_ISA_SCALAR
	isaSSE2    isa = C.CB_ISA_SSE2
	isaAVX2FMA isa = C.CB_ISA_AVX2FMA
	isaAVX512F isa = C.CB_ISA_AVX512F
	isaNEON    isa = C.CB_ISA_NEON
)

// String is the name recorded in Result.ISA.
func (i isa) String() string {
	switch i {
	case isaScalar:
		return "scalar"
	case isaSSE2:
		return "sse2"
	case isaAVX2FMA:
		return "avx2+fma"
	case isaAVX512F:
		return "avx512f"
	case isaNEON:
		return "neon"
	}
	return fmt.Sprintf("isa(%d)", int(i))
}

// supportedISAs lists the paths this CPU can run, best first.
func supportedISAs() []isa {
	var out []isa
	for _, i := range []isa{isaAVX512F, isaAVX2FMA, isaNEON, isaSSE2, isaScalar} {
		if C.cb_isa_supported(C.int(i)) != 0 {
			out = append(out, i)
		}
	}
	return out
}

// parseISA finds a supported path by name; "" means the best one.
func parseISA(name string) (isa, error) {
	isas := supportedISAs()
	if len(isas) == 0 {
		return 0, fmt.Errorf("cpubench: no FMA kernel path compiled for this architecture")
	}
	if name == "" {
		return isas[0], nil
	}
	for _, i := range isas {
		if i.String() == name {
			return i, nil
		}
	}
	return 0, fmt.Errorf("cpubench: ISA path %q not supported here (have %v)", name, isas)
}

// fmaKind selects one of the FMA kernels of an ISA path.
type fmaKind int

// The FMA kernels of kernels.h.
const (
	kindScalarF64 fmaKind = C.CB_FMA_SCALAR_F64
	kindVectorF64 fmaKind = C.CB_FMA_VECTOR_F64
	kindVectorF32 fmaKind = C.CB_FMA_VECTOR_F32
)

// shape is one FMA kernel's layout: chains accumulators of lanes values of
// elemBytes each; fused is 1 when compiled to fuse, 0 when not, -1 if unknown.
type shape struct {
	lanes, chains, fused, elemBytes int
}

// values is the number of lane values a kernel reads and writes back.
func (s shape) values() int { return s.lanes * s.chains }

// fmaShape returns the shape of a kernel, or false when the path lacks it.
func fmaShape(i isa, k fmaKind) (shape, bool) {
	var out C.cb_shape
	if C.cb_fma_shape(C.int(i), C.int(k), &out) != 0 {
		return shape{}, false
	}
	return shape{int(out.lanes), int(out.chains), int(out.fused), int(out.elem_bytes)}, true
}

// fmaRun runs iters steps of x = x*a + x on acc in place; acc must hold exactly
// the kernel's values.
func fmaRun[T float32 | float64](i isa, k fmaKind, acc []T, a float64, iters int64) error {
	s, ok := fmaShape(i, k)
	if !ok {
		return fmt.Errorf("cpubench: %v has no kernel %d", i, k)
	}
	if len(acc) != s.values() || int(unsafe.Sizeof(acc[0])) != s.elemBytes || iters < 0 {
		return fmt.Errorf("cpubench: %v kernel %d: %d values of %d bytes, %d iterations do not fit shape %+v",
			i, k, len(acc), unsafe.Sizeof(acc[0]), iters, s)
	}
	if C.cb_fma_run(C.int(i), C.int(k), unsafe.Pointer(&acc[0]), C.double(a), C.int64_t(iters)) != 0 {
		return fmt.Errorf("cpubench: %v kernel %d refused to run", i, k)
	}
	return nil
}

const vectorStep = 8 // every streaming slice is a multiple (the C loops step by up to 8)

// streamLen returns the common length of equal, non-empty vectorStep multiples.
func streamLen(xs ...[]float64) (int, error) {
	n := len(xs[0])
	for _, x := range xs {
		if len(x) != n || n == 0 || n%vectorStep != 0 {
			return 0, fmt.Errorf("cpubench: stream slices of %d elements (want equal, non-zero, multiples of %d)", len(x), vectorStep)
		}
	}
	return n, nil
}

func ptr(x []float64) *C.double { return (*C.double)(unsafe.Pointer(&x[0])) }

// streamRead returns the sum of a, added in eight interleaved partial sums.
func streamRead(a []float64) (float64, error) {
	n, err := streamLen(a)
	if err != nil {
		return 0, err
	}
	return float64(C.cb_stream_read(ptr(a), C.int64_t(n))), nil
}

// streamWrite stores start+i at x[i].
func streamWrite(x []float64, start float64) error {
	n, err := streamLen(x)
	if err != nil {
		return err
	}
	C.cb_stream_write(ptr(x), C.double(start), C.int64_t(n))
	return nil
}

// streamCopy stores a[i] at c[i].
func streamCopy(c, a []float64) error {
	n, err := streamLen(c, a)
	if err != nil {
		return err
	}
	C.cb_stream_copy(ptr(a), ptr(c), C.int64_t(n))
	return nil
}

// streamTriad stores b[i] + s*c[i] at a[i].
func streamTriad(a, b, c []float64, s float64) error {
	n, err := streamLen(a, b, c)
	if err != nil {
		return err
	}
	C.cb_stream_triad(ptr(a), ptr(b), ptr(c), C.double(s), C.int64_t(n))
	return nil
}

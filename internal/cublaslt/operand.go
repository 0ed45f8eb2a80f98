package cublaslt

import (
	"math/rand/v2"
	"sync"
)

// operand is a rows×cols matrix stored row-major (each row of cols
// elements contiguous, rows packed with no padding) as it is uploaded.
// A is kept as m rows of k, and B as its transpose, n rows of k: both then
// have the reduction dimension contiguous, which is cuBLASLt's "TN"
// layout (A transposed, B not, both column-major with ld = k).
type operand struct {
	t          Type
	rows, cols int
	raw        []byte
}

// at is element (r, c) as a float64.
func (o operand) at(r, c int) float64 { return value(o.raw, o.t, r*o.cols+c) }

// row decodes row r into dst (len cols).
func (o operand) row(r int, dst []float64) {
	base := r * o.cols
	for c := range dst {
		dst[c] = value(o.raw, o.t, base+c)
	}
}

// genRange is the half-width of the uniform distribution elements of t
// are drawn from before rounding: [-1, 1) for types with enough
// resolution there, the whole finite range for the 4- and 6-bit types
// (in [-1, 1) e2m1 has only five values).
func genRange(t Type) float64 {
	switch t {
	case F4E2M1, F6E2M3, F6E3M2:
		return formats[t].maxVal
	}
	return 1
}

// randomOperand draws a rows×cols operand of type t from seed: floats
// uniform in ±genRange(t) rounded to t, integers uniform over t's whole
// range. Chunks of rows are drawn in parallel from streams derived from
// seed, so the result depends only on seed and the shape.
func randomOperand(t Type, rows, cols int, seed uint64) operand {
	o := operand{t: t, rows: rows, cols: cols, raw: make([]byte, t.rowBytes(rows*cols))}
	const chunkRows = 64
	var wg sync.WaitGroup
	for lo := 0; lo < rows; lo += chunkRows {
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(seed, uint64(lo)))
			o.fill(rng, lo*cols, min(lo+chunkRows, rows)*cols)
		})
	}
	wg.Wait()
	return o
}

// fill draws elements lo…hi-1.
func (o operand) fill(rng *rand.Rand, lo, hi int) {
	r := genRange(o.t)
	for i := lo; i < hi; i++ {
		var v uint64
		switch o.t {
		case I8:
			v = uint64(uint8(rng.Uint32()))
		case I32:
			v = uint64(rng.Uint32())
		default:
			v = encode(o.t, (rng.Float64()*2-1)*r)
		}
		put(o.raw, o.t, i, v)
	}
}

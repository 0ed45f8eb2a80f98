package cublaslt

import (
	"math"
	"math/rand/v2"
	"sync"
)

// operand is a rows×cols matrix, row-major and unpadded, as uploaded: A as
// m rows of k, B as its transpose, n rows of k (cuBLASLt's TN layout).
type operand struct {
	t          Type
	rows, cols int
	raw        []byte
}

// prefix is the rows×cols operand of o's first rows·cols elements.
func (o operand) prefix(cols int) operand {
	return operand{t: o.t, rows: o.rows, cols: cols, raw: o.raw[:o.t.rowBytes(o.rows*cols)]}
}

// row decodes row r into dst (len cols).
func (o operand) row(r int, dst []float64) {
	base := r * o.cols
	if o.t.Bits() <= 16 && !o.t.Integer() {
		tab := smallTable(o.t)
		for c := range dst {
			dst[c] = tab[get(o.raw, o.t, base+c)]
		}
		return
	}
	for c := range dst {
		dst[c] = value(o.raw, o.t, base+c)
	}
}

// genRange is the half-width of the uniform draw before rounding to t: 1,
// or the finite range for the 4- and 6-bit types.
func genRange(t Type) float64 {
	switch t {
	case F4E2M1, F6E2M3, F6E3M2:
		return formats[t].maxVal
	}
	return 1
}

// randomOperand draws a rows×cols operand of t, depending only on seed and
// the shape: floats in ±genRange(t), integers over t's range.
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

// fill draws elements lo…hi-1; fp16, bf16 and 8-bit floats take faster
// paths that round as encode does.
func (o operand) fill(rng *rand.Rand, lo, hi int) {
	switch t := o.t; {
	case t == F16 || t == BF16:
		enc := f16Bits
		if t == BF16 {
			enc = bf16Bits
		}
		for i := lo; i < hi; i++ {
			put(o.raw, t, i, uint64(enc(float32(rng.Float64()*2-1))))
		}
		return
	case t.Bits() <= 8 && !t.Integer():
		tab := drawTable(t)
		for i := lo; i < hi; i++ {
			put(o.raw, t, i, uint64(tab[rng.Uint32()>>(32-drawBits)]))
		}
		return
	}
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

// f16Bits rounds f (|f| ≤ 1) to fp16, ties to even, as encode(F16) does.
func f16Bits(f float32) uint16 {
	b := math.Float32bits(f)
	sign := uint16(b>>16) & 0x8000
	b &= 0x7fffffff
	if b < 0x38800000 { // below 2^-14: fp16 subnormal (or zero)
		return sign | uint16(math.RoundToEven(float64(math.Float32frombits(b))*(1<<24)))
	}
	b += 0xfff + (b >> 13 & 1) // round the mantissa to 10 bits; a carry bumps the exponent
	return sign | uint16((b-112<<23)>>13)
}

// bf16Bits rounds a finite f to bf16, ties to even, as encode(BF16) does.
func bf16Bits(f float32) uint16 {
	b := math.Float32bits(f)
	return uint16((b + 0x7fff + (b >> 16 & 1)) >> 16)
}

// drawBits is log2 of the number of buckets drawTable splits ±genRange into.
const drawBits = 16

var drawTables sync.Map // Type → []uint16

// drawTable returns, for a float type of at most 8 bits, the centres of
// 2^drawBits equal buckets of ±genRange(t) rounded to t; the draw is the
// uniform-then-rounded one but within 2^-9 of zero.
func drawTable(t Type) []uint16 {
	if v, ok := drawTables.Load(t); ok {
		return v.([]uint16)
	}
	r, n := genRange(t), 1<<drawBits
	tab := make([]uint16, n)
	for i := range tab {
		tab[i] = uint16(encode(t, ((float64(i)+0.5)/float64(n)*2-1)*r))
	}
	v, _ := drawTables.LoadOrStore(t, tab)
	return v.([]uint16)
}

package gpu

import (
	"encoding/binary"
	"math"

	"github.com/everycycle/appraise/internal/measure/refcheck"
)

// CPU reference of wgsl/bandwidth.wgsl. The kernels' inputs are patterns
// the host can recompute for any index, so every output value is compared
// without keeping a host copy of the arrays.

// Seeds of the fill pattern for the arrays and for the write kernel, and the
// triad scalar (BabelStream's 0.4).
const (
	seedA       uint32  = 0x0A11CE
	seedB       uint32  = 0x0B0B
	seedC       uint32  = 0x0C0FFEE
	seedWrite   uint32  = 0x0D15EA5E
	triadScalar float32 = 0.4
)

// Rounding: float32's unit roundoff u = 2^-24 and machine epsilon 2^-23.
const (
	unitRoundoff = 0x1p-24
	epsilon32    = 0x1p-23
)

// fillPattern is pattern() of bandwidth.wgsl: a float32 in [1, 2) whose
// mantissa is (i*0x9E3779B1 + seed) mod 2^23, i being the scalar index.
func fillPattern(i, seed uint32) float32 {
	return math.Float32frombits(0x3F800000 | ((i*0x9E3779B1 + seed) & 0x007FFFFF))
}

// triadTolerance is the relative tolerance of triad: the GPU rounds the
// product and the sum (or fuses them), each off by at most u, so 2*epsilon
// (4u) bounds it with room to spare.
const triadTolerance = 2 * epsilon32

// readTolerance is the relative tolerance of one workgroup's partial sum
// when each invocation adds up to perThread values in sequence and the
// workgroup then adds its 256 sums as a tree of depth 8: twice the classic
// bound gamma_m = m*u/(1-m*u) for m = perThread+8 additions, all terms being
// positive.
func readTolerance(perThread uint64) float64 {
	m := float64(perThread + 8)
	return 2 * m * unitRoundoff / (1 - m*unitRoundoff)
}

// wantFunc gives the reference value of scalar index i of an output.
type wantFunc func(i uint32) float64

// wantFill is the reference of an array filled with seed.
func wantFill(seed uint32) wantFunc {
	return func(i uint32) float64 { return float64(fillPattern(i, seed)) }
}

// wantTriad is the reference of a = b + scalar*c after copy made c equal to
// the original a; computed in float64, so exactly.
func wantTriad(i uint32) float64 {
	return float64(fillPattern(i, seedB)) + float64(triadScalar)*float64(fillPattern(i, seedA))
}

// checkArray compares a chunk of float32 output whose first value has
// scalar index first against want, within relative tolerance tol.
func checkArray(chunk []byte, first uint64, want wantFunc, tol float64) refcheck.Result {
	return refcheck.Parallel(uint64(len(chunk)/4), func(lo, hi uint64) refcheck.Result {
		r := refcheck.New()
		for k := lo; k < hi; k++ {
			got := math.Float32frombits(binary.LittleEndian.Uint32(chunk[4*k:]))
			i := first + k
			r.Compare(float64(got), want(uint32(i)), tol, int64(i))
		}
		return r
	})
}

// readReference is the exact (float64) sum, lane by lane, of each
// workgroup's share of an array of n vec4 elements filled with seed, when
// groups workgroups of wgSize walk it grid-stride as bw_read does.
func readReference(n uint64, groups uint32, seed uint32) [][4]float64 {
	sums := make([][4]float64, groups)
	stride := uint64(groups) * wgSize
	refcheck.Parallel(uint64(groups), func(lo, hi uint64) refcheck.Result {
		for g := lo; g < hi; g++ {
			for t := g * wgSize; t < (g+1)*wgSize; t++ {
				for i := t; i < n; i += stride {
					for l := uint64(0); l < 4; l++ {
						sums[g][l] += float64(fillPattern(uint32(4*i+l), seed))
					}
				}
			}
		}
		return refcheck.New()
	})
	return sums
}

// checkPartials compares bw_read's partial sums (groups vec4 values) with
// the reference sums, within relative tolerance tol.
func checkPartials(raw []byte, want [][4]float64, tol float64) refcheck.Result {
	return refcheck.Parallel(uint64(len(want)), func(lo, hi uint64) refcheck.Result {
		r := refcheck.New()
		for g := lo; g < hi; g++ {
			for l := uint64(0); l < 4; l++ {
				k := 4*g + l
				got := math.Float32frombits(binary.LittleEndian.Uint32(raw[4*k:]))
				r.Compare(float64(got), want[g][l], tol, int64(k))
			}
		}
		return r
	})
}

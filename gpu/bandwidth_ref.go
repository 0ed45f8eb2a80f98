package gpu

import (
	"encoding/binary"
	"math"

	"github.com/everycycle/appraise/internal/measure/refcheck"
)

// CPU reference of wgsl/bandwidth.wgsl. Inputs are patterns of their index,
// so every output is compared without a host copy of the arrays.

const (
	seedA       uint32  = 0x0A11CE
	seedB       uint32  = 0x0B0B
	seedC       uint32  = 0x0C0FFEE
	seedWrite   uint32  = 0x0D15EA5E
	triadScalar float32 = 0.4 // BabelStream's
)

const (
	unitRoundoff = 0x1p-24
	epsilon32    = 0x1p-23
)

// fillPattern is pattern() of bandwidth.wgsl: a float32 in [1, 2) whose
// mantissa is (i*0x9E3779B1 + seed) mod 2^23.
func fillPattern(i, seed uint32) float32 {
	return math.Float32frombits(0x3F800000 | ((i*0x9E3779B1 + seed) & 0x007FFFFF))
}

// triadTolerance bounds triad's two roundings (or one, fused).
const triadTolerance = 2 * epsilon32

// readTolerance is twice gamma_m for m = perThread+8 additions.
func readTolerance(perThread uint64) float64 {
	m := float64(perThread + 8)
	return 2 * m * unitRoundoff / (1 - m*unitRoundoff)
}

type wantFunc func(i uint32) float64

func wantFill(seed uint32) wantFunc {
	return func(i uint32) float64 { return float64(fillPattern(i, seed)) }
}

// wantTriad is a = b + scalar*c after copy made c the original a.
func wantTriad(i uint32) float64 {
	return float64(fillPattern(i, seedB)) + float64(triadScalar)*float64(fillPattern(i, seedA))
}

// checkArray compares float32 output, the first at scalar index first.
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

// readReference is each workgroup's exact sum of its share, lane by lane.
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

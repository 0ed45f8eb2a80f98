package cpu

import (
	"errors"
	"math"
	"math/bits"
)

// Reference values and the comparison every figure passes before it
// counts. The arrays hold index patterns the host can recompute for any
// index, so every output element is compared without keeping a copy.

// ErrCheckFailed means a kernel's output differed from its reference by
// more than the tolerance: the figure is not reported.
var ErrCheckFailed = errors.New("cpubench: result check failed")

// Pattern seeds, the write kernel's start value and the triad scalar
// (BabelStream's 0.4).
const (
	seedA       uint64  = 0x0A11CE0A11CE
	seedB       uint64  = 0x0B0B0B0B
	writeStart  float64 = 0.5
	triadScalar float64 = 0.4
)

// Rounding constants of float64: unit roundoff u and machine epsilon 2u.
const (
	unitRoundoff64 = 0x1p-53
	epsilon64      = 0x1p-52
)

// triadTolerance is the relative tolerance of triad a = b + s*c. The C loop
// may fuse the multiply-add (arm64) or not (amd64 baseline); the reference
// rounds the product and then the sum. Either result is within 2u of the
// exact value, so the two differ by at most 4u = 2*epsilon.
const triadTolerance = 2 * epsilon64

// mantissa is the 52-bit fraction of pattern(i, seed).
func mantissa(i, seed uint64) uint64 { return (i*0x9E3779B97F4A7C15 + seed) >> 12 }

// pattern is the value at index i of an array filled with seed: a float64
// in [1, 2) whose fraction bits are a hash of i.
func pattern(i, seed uint64) float64 {
	return math.Float64frombits(0x3FF0000000000000 | mantissa(i, seed))
}

// wantTriad is a[i] after triad, when b holds seedB and c, after copy,
// holds seedA. The explicit conversion rounds the product before the add.
func wantTriad(i uint64) float64 {
	return pattern(i, seedB) + float64(triadScalar*pattern(i, seedA))
}

// wantWrite is x[i] after the write kernel: start + i, exact below 2^52.
func wantWrite(i uint64) float64 { return writeStart + float64(i) }

// patternSum is the sum of pattern(i, seed) over [lo, hi), computed exactly
// in integers (hi-lo ones plus the fractions, as a 128-bit count of 2^-52)
// and rounded to float64 at the end: within 3u of the true sum.
func patternSum(lo, hi, seed uint64) float64 {
	var sumHi, sumLo, carry uint64
	for i := lo; i < hi; i++ {
		sumLo, carry = bits.Add64(sumLo, mantissa(i, seed), 0)
		sumHi += carry
	}
	frac := (float64(sumHi)*0x1p64 + float64(sumLo)) * 0x1p-52
	return float64(hi-lo) + frac
}

// readTolerance is the relative tolerance of one thread's sum of n
// positive values by cb_stream_read: eight partial sums of n/8 values each,
// then three levels of pairwise adds, so m = n/8+3 additions on any path.
// Twice the classic bound gamma_m = m*u/(1-m*u) also covers the
// reference's own 3u.
func readTolerance(n uint64) float64 {
	m := float64(n/8 + 3)
	return 2 * m * unitRoundoff64 / (1 - m*unitRoundoff64)
}

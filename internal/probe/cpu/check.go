package cpu

import (
	"errors"
	"math"
	"math/bits"
)

// ErrCheckFailed means a kernel's output was out of tolerance: no figure counts.
var ErrCheckFailed = errors.New("cpubench: result check failed")

// Pattern seeds, the write kernel's start value and BabelStream's triad scalar.
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

// triadTolerance is triad's relative tolerance: fused (arm64) or not, a = b +
// s*c is within 2u of exact, so it and the reference differ by at most 4u.
const triadTolerance = 2 * epsilon64

// mantissa is the 52-bit fraction of pattern(i, seed).
func mantissa(i, seed uint64) uint64 { return (i*0x9E3779B97F4A7C15 + seed) >> 12 }

// pattern is element i of an array filled from seed: a float64 in [1, 2) whose
// fraction hashes i, so every output can be recomputed without a copy.
func pattern(i, seed uint64) float64 {
	return math.Float64frombits(0x3FF0000000000000 | mantissa(i, seed))
}

// wantTriad is a[i] after triad; the conversion rounds the product first.
func wantTriad(i uint64) float64 {
	return pattern(i, seedB) + float64(triadScalar*pattern(i, seedA))
}

// wantWrite is x[i] after the write kernel: start + i, exact below 2^52.
func wantWrite(i uint64) float64 { return writeStart + float64(i) }

// patternSum is the sum of pattern(i, seed) over [lo, hi), exact in integers
// and rounded once: within 3u of the true sum.
func patternSum(lo, hi, seed uint64) float64 {
	var sumHi, sumLo, carry uint64
	for i := lo; i < hi; i++ {
		sumLo, carry = bits.Add64(sumLo, mantissa(i, seed), 0)
		sumHi += carry
	}
	frac := (float64(sumHi)*0x1p64 + float64(sumLo)) * 0x1p-52
	return float64(hi-lo) + frac
}

// readTolerance bounds one thread's sum of n positive values by cb_stream_read,
// m = n/8+3 additions: twice gamma_m, which covers the reference's 3u too.
func readTolerance(n uint64) float64 {
	m := float64(n/8 + 3)
	return 2 * m * unitRoundoff64 / (1 - m*unitRoundoff64)
}

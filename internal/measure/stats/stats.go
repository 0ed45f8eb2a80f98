// Package stats summarises repeated timed samples: the median, min and max
// every figure of a report carries (schema.Stat). One implementation
// serves every probe, so every figure's median means the same thing.
package stats

import (
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/everycycle/appraise/schema"
)

// ErrBadSample is wrapped when there is no sample, or a sample is not a
// positive finite number (a zero time or rate means a broken timer).
var ErrBadSample = errors.New("sample is not a positive finite number")

// Median is the middle of xs, the mean of the middle two for an even
// count. xs is not modified; it must not be empty.
func Median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	m := len(s) / 2
	if len(s)%2 == 1 {
		return s[m]
	}
	return (s[m-1] + s[m]) / 2
}

// Summarize returns the count, median, min and max of samples (warm-up
// already dropped). Every sample must be a positive finite number.
func Summarize(samples []float64) (schema.Stat, error) {
	if len(samples) == 0 {
		return schema.Stat{}, fmt.Errorf("stats: no samples: %w", ErrBadSample)
	}
	for i, s := range samples {
		if !(s > 0) || math.IsInf(s, 0) {
			return schema.Stat{}, fmt.Errorf("stats: sample %d is %v: %w", i, s, ErrBadSample)
		}
	}
	return schema.Stat{Samples: len(samples), Median: Median(samples), Min: slices.Min(samples), Max: slices.Max(samples)}, nil
}

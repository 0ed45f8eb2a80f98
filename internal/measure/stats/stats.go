// Package stats summarises repeated timed samples as a report's figures carry them.
package stats

import (
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/everycycle/appraise/schema"
)

// ErrBadSample is wrapped when there is no sample or one is not positive and finite.
var ErrBadSample = errors.New("sample is not a positive finite number")

// Median is the middle of xs, which must not be empty and is not modified.
func Median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	m := len(s) / 2
	if len(s)%2 == 1 {
		return s[m]
	}
	return (s[m-1] + s[m]) / 2
}

// Summarize returns the count, median, min and max of positive finite samples.
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

// Package refcheck records how a kernel's outputs compare with their references.
package refcheck

import (
	"fmt"
	"math"
	"runtime"
	"sync"
)

// Result is the outcome of comparing outputs with references; start from New.
type Result struct {
	Checked uint64  // values compared
	MaxRel  float64 // largest relative error seen
	Bad     int64   // index of the first value out of tolerance, -1 if none
	Got     float64 // the value at Bad
	Want    float64 // its reference
}

// New is an empty result.
func New() Result { return Result{Bad: -1} }

// Compare checks one value at index idx; tol 0 demands equality.
func (r *Result) Compare(got, want, tol float64, idx int64) {
	r.Checked++
	rel := 0.0
	if got != want {
		rel = math.Abs(got-want) / math.Abs(want)
	}
	if !(rel <= tol) && r.Bad < 0 {
		r.Bad, r.Got, r.Want = idx, got, want
	}
	if !math.IsNaN(rel) {
		r.MaxRel = max(r.MaxRel, rel)
	}
}

// Merge folds another part's result into r, keeping the lowest bad index.
func (r *Result) Merge(o Result) {
	r.Checked += o.Checked
	r.MaxRel = max(r.MaxRel, o.MaxRel)
	if o.Bad >= 0 && (r.Bad < 0 || o.Bad < r.Bad) {
		r.Bad, r.Got, r.Want = o.Bad, o.Got, o.Want
	}
}

// MergeAll merges per-part results.
func MergeAll(parts []Result) Result {
	total := New()
	for _, p := range parts {
		total.Merge(p)
	}
	return total
}

// Err wraps failed (the caller's ErrCheckFailed) if a value was out of tolerance.
func (r Result) Err(failed error, kernel string, tol float64) error {
	if r.Bad < 0 {
		return nil
	}
	return fmt.Errorf("%w: %s: value %d is %v, want %v (tolerance %.3g relative, %d values compared)",
		failed, kernel, r.Bad, r.Got, r.Want, tol, r.Checked)
}

// Parallel runs part(lo, hi) over [0, n) split among the CPUs, merging the results.
func Parallel(n uint64, part func(lo, hi uint64) Result) Result {
	workers := uint64(max(1, runtime.GOMAXPROCS(0)))
	step := (n + workers - 1) / workers
	results := make([]Result, workers)
	var wg sync.WaitGroup
	for w := uint64(0); w < workers; w++ {
		lo, hi := w*step, min(n, (w+1)*step)
		results[w] = New()
		if lo >= hi {
			continue
		}
		wg.Go(func() { results[w] = part(lo, hi) })
	}
	wg.Wait()
	return MergeAll(results)
}

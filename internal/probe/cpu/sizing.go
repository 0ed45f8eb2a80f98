package cpu

import (
	"errors"
	"fmt"
)

// ErrTooLittleMemory means the memory the probe may use cannot hold arrays
// larger than the caches; Measure then leaves bandwidth out, saying why.
var ErrTooLittleMemory = errors.New("cpubench: too little memory for arrays larger than the caches")

const (
	mib = 1 << 20
	gib = 1 << 30

	defaultBudget  = 1 * gib  // the arrays' least total without MemoryLimit or Effort.ArrayLLCs
	llcFactor      = 4        // without a limit each array is this many LLCs (STREAM's rule)
	minLLCFactor   = 2        // no array is smaller than this many LLCs
	minArrayBytes  = 64 * mib // the smallest array, whatever the cache topology says
	availableShare = 4        // without a limit the arrays take at most usable/availableShare
	limitShare     = 2        // with a limit they stay below usable/limitShare, short of swap
	streamArrays   = 3        // BabelStream's a, b and c
	elementBytes   = 8        // float64
	sliceStep      = 64       // each thread's slice is a multiple of this many elements (512 bytes)
)

// minArray is the smallest array, in bytes, that defeats an llc-byte cache.
func minArray(llc uint64) uint64 { return max(minArrayBytes, minLLCFactor*llc) }

// arrayBudget is the bytes the three arrays may take together, given
// MemoryLimit (0: choose), the memory the process may allocate, the
// last-level cache (0: unknown) and Effort.ArrayLLCs.
func arrayBudget(limit, available, llc, llcs uint64) (uint64, error) {
	if limit > 0 {
		if available > 0 {
			return min(limit, available/limitShare), nil
		}
		return limit, nil
	}
	if available == 0 {
		return 0, errors.New("cpubench: usable memory unknown and no MemoryLimit given")
	}
	want := max(uint64(defaultBudget), streamArrays*llcFactor*llc)
	if llcs > 0 {
		want = streamArrays * max(minArray(llc), llcs*llc)
	}
	return min(want, available/availableShare), nil
}

// arrayLayout is how the arrays are cut among threads.
type arrayLayout struct {
	perThread uint64 // elements of each thread's slice of each array, a multiple of sliceStep
	threads   int    // the number of slices
}

func (l arrayLayout) elements() uint64 { return l.perThread * uint64(l.threads) }

func (l arrayLayout) arrayBytes() uint64 { return l.elements() * elementBytes }

// bounds returns the element range [lo, hi) of thread w's slice.
func (l arrayLayout) bounds(w int) (lo, hi uint64) {
	return uint64(w) * l.perThread, uint64(w+1) * l.perThread
}

// layoutArrays cuts budget into three float64 arrays of one equal slice per
// thread, refusing arrays smaller than minBytes with ErrTooLittleMemory.
func layoutArrays(budget uint64, threads int, minBytes uint64) (arrayLayout, error) {
	if threads < 1 {
		return arrayLayout{}, fmt.Errorf("cpubench: %d threads", threads)
	}
	perArray := budget / streamArrays / elementBytes
	per := perArray / uint64(threads) / sliceStep * sliceStep
	l := arrayLayout{perThread: per, threads: threads}
	if per == 0 || l.arrayBytes() < minBytes {
		return arrayLayout{}, fmt.Errorf("%w: %d MiB for %d arrays over %d threads gives %d MiB arrays, want at least %d MiB",
			ErrTooLittleMemory, budget/mib, streamArrays, threads, l.arrayBytes()/mib, minBytes/mib)
	}
	return l, nil
}

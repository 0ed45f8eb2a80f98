package cpu

import (
	"errors"
	"fmt"
)

// Sizing of the bandwidth arrays: from the memory the process may use
// (host.ReadMemory: MemAvailable, or its cgroup's room when smaller) and
// the cache topology the kernel reports (cache.go), never from a CPU
// model. Pure functions, so tests pin every rule.

// ErrTooLittleMemory means the memory the probe may use cannot hold arrays
// large enough to defeat the caches, so a bandwidth figure would measure
// cache, not memory. Measure then leaves the bandwidth figures out and
// says why (Result.BandwidthOmitted); only layoutArrays returns it.
var ErrTooLittleMemory = errors.New("cpubench: too little memory for arrays larger than the caches")

const (
	mib = 1 << 20
	gib = 1 << 30

	// defaultBudget is the least the three arrays take together when
	// Options.MemoryLimit is 0 and the probe is not Quick.
	defaultBudget = 1 * gib
	// llcFactor: without a limit each array is at least this many times
	// the last-level cache (STREAM's rule), even beyond defaultBudget.
	llcFactor = 4
	// minLLCFactor: no array is smaller than this many times the
	// last-level cache (ErrTooLittleMemory); Quick arrays are this size.
	minLLCFactor = 2
	// minArrayBytes is the smallest array accepted, whatever the cache
	// topology says (sysfs may describe no cache at all).
	minArrayBytes = 64 * mib
	// availableShare: without a limit the arrays take at most
	// usable/availableShare, where usable is what the process may
	// allocate (MemAvailable, or the cgroup's room when smaller): the
	// rest of the host keeps three quarters, and the appraisal's later,
	// GPU-side allocations come after the arrays are unmapped.
	availableShare = 4
	// limitShare: even with an explicit limit the arrays stay below
	// usable/limitShare, so the probe never pushes the host to swap.
	limitShare = 2
	// streamArrays is the number of arrays (BabelStream's a, b and c).
	streamArrays = 3
	// elementBytes is the size of one float64 element.
	elementBytes = 8
	// sliceStep: each thread's slice is a multiple of this many elements
	// (512 bytes: whole cache lines and whole vector steps).
	sliceStep = 64
)

// minArray is the smallest array, in bytes, that defeats a last-level
// cache of llc bytes (0: unknown).
func minArray(llc uint64) uint64 { return max(minArrayBytes, minLLCFactor*llc) }

// arrayBudget is the number of bytes the three arrays may take together.
// limit is Options.MemoryLimit (0: choose), available is what the process
// may allocate and llc the last-level cache (0: unknown). Without a limit
// the arrays are minArray(llc) each when quick, else llcFactor*llc each
// but at least defaultBudget together, and at most available/4 together
// either way. With a limit: min(limit, available/2).
func arrayBudget(limit, available, llc uint64, quick bool) (uint64, error) {
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
	if quick {
		want = streamArrays * minArray(llc)
	}
	return min(want, available/availableShare), nil
}

// arrayLayout is how the arrays are cut among threads.
type arrayLayout struct {
	// perThread is the number of elements of each thread's contiguous slice
	// of each array, a multiple of sliceStep.
	perThread uint64
	// threads is the number of slices.
	threads int
}

// elements is the length of each array.
func (l arrayLayout) elements() uint64 { return l.perThread * uint64(l.threads) }

// arrayBytes is the size of each array in bytes.
func (l arrayLayout) arrayBytes() uint64 { return l.elements() * elementBytes }

// bounds returns the element range [lo, hi) of thread w's slice.
func (l arrayLayout) bounds(w int) (lo, hi uint64) {
	return uint64(w) * l.perThread, uint64(w+1) * l.perThread
}

// layoutArrays cuts budget bytes into three equal float64 arrays, each
// split into one equal slice per thread, and refuses arrays smaller than
// minBytes.
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

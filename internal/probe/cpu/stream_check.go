package cpu

import "github.com/everycycle/appraise/internal/measure/refcheck"

// Checks of the bandwidth kernels against their closed forms, every
// element, in parallel over the threads' slices.

// check compares a kernel's output with its reference and returns the
// result and the relative tolerance used.
func (s *streamBench) check(name string) (refcheck.Result, float64) {
	switch name {
	case "read":
		return s.checkRead()
	case "write", "copy":
		return s.checkArray(name, s.c, 0), 0
	case "triad":
		return s.checkArray(name, s.a, triadTolerance), triadTolerance
	}
	r := refcheck.New()
	r.Bad = 0
	return r, 0
}

// checkArray compares every element of x, the output of kernel, with its
// reference within tol, each thread checking its own slice.
func (s *streamBench) checkArray(kernel string, x []float64, tol float64) refcheck.Result {
	parts := make([]refcheck.Result, s.layout.threads)
	runTeam(s.layout.threads, func(w int) {
		lo, hi := s.layout.bounds(w)
		parts[w] = checkRange(kernel, x, lo, hi, tol)
	})
	return refcheck.MergeAll(parts)
}

// checkRange compares x[lo:hi] with the reference of kernel, one loop per
// kernel so the reference inlines. Equal values, the common case, take a
// short path; the rest go through compare.
func checkRange(kernel string, x []float64, lo, hi uint64, tol float64) refcheck.Result {
	r := refcheck.New()
	differs := func(i uint64, want float64) {
		r.Compare(x[i], want, tol, int64(i))
		r.Checked--
	}
	switch kernel {
	case "write":
		for i := lo; i < hi; i++ {
			if want := wantWrite(i); x[i] != want {
				differs(i, want)
			}
		}
	case "copy":
		for i := lo; i < hi; i++ {
			if want := pattern(i, seedA); x[i] != want {
				differs(i, want)
			}
		}
	case "triad":
		for i := lo; i < hi; i++ {
			if want := wantTriad(i); x[i] != want {
				differs(i, want)
			}
		}
	default:
		r.Bad = int64(lo)
	}
	r.Checked += hi - lo
	return r
}

// checkRead compares each thread's sum with the exact sum of its slice.
// Every pass's sum already matched the last one bit for bit (pass), so
// all passes count as checked.
func (s *streamBench) checkRead() (refcheck.Result, float64) {
	tol := readTolerance(s.layout.perThread)
	parts := make([]refcheck.Result, s.layout.threads)
	runTeam(s.layout.threads, func(w int) {
		lo, hi := s.layout.bounds(w)
		r := refcheck.New()
		r.Compare(s.sums[w], patternSum(lo, hi, seedA), tol, int64(w))
		r.Checked = s.passes
		parts[w] = r
	})
	return refcheck.MergeAll(parts), tol
}

// corruptFactor is what the fault-injection hook multiplies one output by:
// 2^32 float64 ulps, far outside every tolerance.
const corruptFactor = 1 + 0x1p-20

// corruptOutput is the fault-injection test hook: it spoils one output of
// a kernel (an element in the middle of the array it wrote, or thread 0's
// sum) so that the check must fail.
func (s *streamBench) corruptOutput(name string) {
	mid := s.layout.elements() / 2
	switch name {
	case "read":
		s.sums[0] *= corruptFactor
	case "write", "copy":
		s.c[mid] *= corruptFactor
	case "triad":
		s.a[mid] *= corruptFactor
	}
}

package cpu

import "github.com/everycycle/appraise/internal/measure/refcheck"

// check compares a kernel's output with its reference, within the returned tolerance.
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

// checkArray compares every element of x with kernel's reference within tol.
func (s *streamBench) checkArray(kernel string, x []float64, tol float64) refcheck.Result {
	parts := make([]refcheck.Result, s.layout.threads)
	runTeam(s.layout.threads, func(w int) {
		lo, hi := s.layout.bounds(w)
		parts[w] = checkRange(kernel, x, lo, hi, tol)
	})
	return refcheck.MergeAll(parts)
}

// checkRange compares x[lo:hi] with kernel's reference, one loop per kernel so
// the reference inlines.
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

// checkRead compares each thread's sum with its slice's exact sum. Every pass
// matched the last bit for bit, so all count as checked.
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

const corruptFactor = 1 + 0x1p-20 // 2^32 float64 ulps, outside every tolerance

// corruptOutput spoils one output of a kernel so that its check must fail.
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

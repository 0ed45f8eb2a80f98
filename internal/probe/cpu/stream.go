package cpu

import (
	"context"
	"errors"
	"fmt"
	"syscall"
	"unsafe"

	"github.com/everycycle/appraise/internal/measure/stats"
)

// streamSpec is one row of the bandwidth table.
type streamSpec struct {
	name            string
	reads, writes   int // arrays read and written
	bytesPerElement int // 8 per array read or written; write-allocate reads not counted
}

// streamTable lists the bandwidth kernels in the order they run. Each is
// idempotent, over arrays set so every output has a closed form: read sums
// a = pattern(seedA); write sets c[i] = 0.5+i; copy sets c = a; triad sets
// a = b + 0.4*c, with b = pattern(seedB).
func streamTable() []streamSpec {
	return []streamSpec{
		{name: "read", reads: 1, writes: 0, bytesPerElement: 8},
		{name: "write", reads: 0, writes: 1, bytesPerElement: 8},
		{name: "copy", reads: 1, writes: 1, bytesPerElement: 16},
		{name: "triad", reads: 2, writes: 1, bytesPerElement: 24},
	}
}

// streamBench holds the arrays and per-thread state of the bandwidth run.
type streamBench struct {
	layout  arrayLayout
	plan    samplePlan
	corrupt string // test hook: kernel whose output is corrupted before its check
	a, b, c []float64
	maps    [][]byte
	sums    []float64 // read: each thread's last sum
	passes  uint64    // read: passes per thread so far
}

// newStreamBench maps the arrays and fills them from every thread, so each page
// is first touched by the thread that streams it.
func newStreamBench(l arrayLayout, plan samplePlan, corrupt string) (*streamBench, error) {
	s := &streamBench{layout: l, plan: plan, corrupt: corrupt, sums: make([]float64, l.threads)}
	for _, dst := range []*[]float64{&s.a, &s.b, &s.c} {
		arr, raw, err := mapArray(l.elements())
		if err != nil {
			return nil, errors.Join(err, s.release())
		}
		*dst = arr
		s.maps = append(s.maps, raw)
	}
	runTeam(l.threads, func(w int) {
		lo, hi := l.bounds(w)
		for i := lo; i < hi; i++ {
			s.a[i], s.b[i], s.c[i] = pattern(i, seedA), pattern(i, seedB), 0
		}
	})
	return s, nil
}

// mapArray maps n float64 of anonymous memory outside the Go heap, returned to
// the system on release. It does not ask for huge pages.
func mapArray(n uint64) ([]float64, []byte, error) {
	raw, err := syscall.Mmap(-1, 0, int(n*elementBytes), syscall.PROT_READ|syscall.PROT_WRITE,
		syscall.MAP_PRIVATE|syscall.MAP_ANON)
	if err != nil {
		return nil, nil, fmt.Errorf("cpubench: mmap %d bytes: %w", n*elementBytes, err)
	}
	return unsafe.Slice((*float64)(unsafe.Pointer(&raw[0])), n), raw, nil
}

// release unmaps the arrays; safe to call twice.
func (s *streamBench) release() error {
	var errs []error
	for _, raw := range s.maps {
		if err := syscall.Munmap(raw); err != nil {
			errs = append(errs, fmt.Errorf("cpubench: munmap: %w", err))
		}
	}
	s.maps, s.a, s.b, s.c = nil, nil, nil, nil
	return errors.Join(errs...)
}

// pass runs one pass of a kernel over thread w's slices. After the first, a
// read pass must give the previous pass's sum bit for bit.
func (s *streamBench) pass(name string, w int, first bool) error {
	lo, hi := s.layout.bounds(w)
	a, b, c := s.a[lo:hi], s.b[lo:hi], s.c[lo:hi]
	switch name {
	case "read":
		sum, err := streamRead(a)
		if err == nil && !first && sum != s.sums[w] {
			err = fmt.Errorf("%w: read: sum %v differs from the previous pass's %v", ErrCheckFailed, sum, s.sums[w])
		}
		s.sums[w] = sum
		return err
	case "write":
		return streamWrite(c, writeStart+float64(lo))
	case "copy":
		return streamCopy(c, a)
	case "triad":
		return streamTriad(a, b, c, triadScalar)
	}
	return fmt.Errorf("cpubench: unknown stream kernel %q", name)
}

// timed runs reps passes of a kernel on every thread and returns seconds.
func (s *streamBench) timed(name string, reps int64) (float64, error) {
	errs := make([]error, s.layout.threads)
	secs := runTeam(s.layout.threads, func(w int) {
		for r := int64(0); r < reps && errs[w] == nil; r++ {
			errs[w] = s.pass(name, w, s.passes == 0 && r == 0)
		}
	})
	if name == "read" {
		s.passes += uint64(reps)
	}
	return secs, firstError(errs)
}

// measure calibrates a kernel, takes its samples, then checks every output.
func (s *streamBench) measure(ctx context.Context, spec streamSpec) (Bandwidth, error) {
	trial := func(reps int64) (float64, error) { return s.timed(spec.name, reps) }
	reps, err := calibrate(1, s.plan.targetS, trial)
	if err != nil {
		return Bandwidth{}, fmt.Errorf("cpubench: %s: %w", spec.name, err)
	}
	run := func(reps int64, _ bool) (float64, error) { return s.timed(spec.name, reps) }
	amount := func(reps int64) float64 {
		return float64(uint64(spec.bytesPerElement) * s.layout.elements() * uint64(reps))
	}
	rates, err := s.plan.take(ctx, reps, run, amount)
	if err != nil {
		return Bandwidth{}, fmt.Errorf("cpubench: %s: %w", spec.name, err)
	}
	if s.corrupt == spec.name {
		s.corruptOutput(spec.name)
	}
	chk, tol := s.check(spec.name)
	if err := chk.Err(ErrCheckFailed, spec.name, tol); err != nil {
		return Bandwidth{}, err
	}
	stat, err := stats.Summarize(rates)
	if err != nil {
		return Bandwidth{}, fmt.Errorf("cpubench: %s: %w", spec.name, err)
	}
	return Bandwidth{
		Kernel: spec.name, BytesPerS: stat, ArrayBytes: s.layout.arrayBytes(),
		BytesPerElement: spec.bytesPerElement, Checked: chk.Checked, MaxError: chk.MaxRel, Tolerance: tol,
	}, nil
}

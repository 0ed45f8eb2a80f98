package cpu

import (
	"context"
	"errors"
	"math"
	"testing"
)

// newSmallStream maps small arrays (below the cache-defeating minimum,
// which only layoutArrays enforces) for kernel tests.
func newSmallStream(t *testing.T, threads int, perThread uint64) *streamBench {
	t.Helper()
	s, err := newStreamBench(arrayLayout{perThread: perThread, threads: threads}, samplePlan{samples: 1, targetS: minSampleS}, "")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := s.release(); err != nil {
			t.Error(err)
		}
		if err := s.release(); err != nil {
			t.Errorf("second release: %v", err)
		}
	})
	return s
}

func TestStreamTable(t *testing.T) {
	want := map[string]int{"read": 8, "write": 8, "copy": 16, "triad": 24}
	rows := streamTable()
	if len(rows) != len(want) {
		t.Fatalf("%d rows, want %d", len(rows), len(want))
	}
	for _, r := range rows {
		if r.bytesPerElement != want[r.name] || r.bytesPerElement != elementBytes*(r.reads+r.writes) {
			t.Errorf("%s: %d bytes per element (%d reads, %d writes), want %d", r.name, r.bytesPerElement, r.reads, r.writes, want[r.name])
		}
	}
}

// TestStreamKernelsCheck runs every kernel in table order, as measure
// does, and checks every element of its output.
func TestStreamKernelsCheck(t *testing.T) {
	s := newSmallStream(t, 3, 4096)
	for _, spec := range streamTable() {
		if _, err := s.timed(spec.name, 3); err != nil {
			t.Fatalf("%s: %v", spec.name, err)
		}
		chk, tol := s.check(spec.name)
		if err := chk.Err(ErrCheckFailed, spec.name, tol); err != nil {
			t.Errorf("%s: %v", spec.name, err)
		}
		wantChecked := s.layout.elements()
		if spec.name == "read" {
			wantChecked = 3 * 3 // three passes on three threads
		}
		if chk.Checked != wantChecked || chk.MaxRel > tol {
			t.Errorf("%s: %d values checked (want %d), max error %v over tolerance %v", spec.name, chk.Checked, wantChecked, chk.MaxRel, tol)
		}
	}
}

// TestStreamFaultInjection spoils one output of each kernel and expects
// the check to fail.
func TestStreamFaultInjection(t *testing.T) {
	s := newSmallStream(t, 2, 1024)
	for _, spec := range streamTable() {
		if _, err := s.timed(spec.name, 1); err != nil {
			t.Fatalf("%s: %v", spec.name, err)
		}
		s.corruptOutput(spec.name)
		chk, tol := s.check(spec.name)
		if err := chk.Err(ErrCheckFailed, spec.name, tol); !errors.Is(err, ErrCheckFailed) {
			t.Errorf("%s: corrupted output passed the check (%v)", spec.name, err)
		}
	}
}

func TestReadDetectsChangingSums(t *testing.T) {
	s := newSmallStream(t, 1, 1024)
	if _, err := s.timed("read", 1); err != nil {
		t.Fatal(err)
	}
	s.a[5] = 3
	if _, err := s.timed("read", 1); !errors.Is(err, ErrCheckFailed) {
		t.Errorf("a read pass over changed data gave %v, want ErrCheckFailed", err)
	}
}

func TestMeasureStreamFault(t *testing.T) {
	s := newSmallStream(t, 2, 1<<14)
	s.corrupt = "copy"
	for _, spec := range streamTable() {
		_, err := s.measure(context.Background(), spec)
		if spec.name == "copy" {
			if !errors.Is(err, ErrCheckFailed) {
				t.Errorf("copy with a corrupted output: %v", err)
			}
			break
		}
		if err != nil {
			t.Fatalf("%s: %v", spec.name, err)
		}
	}
}

func TestPatternSum(t *testing.T) {
	for _, r := range [][2]uint64{{0, 1}, {0, 1000}, {12345, 99999}} {
		var naive, comp float64
		for i := r[0]; i < r[1]; i++ { // Kahan-compensated, for reference
			y := pattern(i, seedA) - comp
			t2 := naive + y
			comp = (t2 - naive) - y
			naive = t2
		}
		got := patternSum(r[0], r[1], seedA)
		if math.Abs(got-naive) > 4*unitRoundoff64*naive {
			t.Errorf("patternSum%v = %v, compensated sum %v", r, got, naive)
		}
	}
}

func TestPatternRange(t *testing.T) {
	for _, i := range []uint64{0, 1, 1 << 40, math.MaxUint64} {
		if v := pattern(i, seedB); !(v >= 1 && v < 2) {
			t.Errorf("pattern(%d) = %v, want [1, 2)", i, v)
		}
	}
	if pattern(1, seedA) == pattern(2, seedA) {
		t.Error("neighbouring pattern values are equal")
	}
}

func TestStreamRejectsBadSlices(t *testing.T) {
	if err := streamCopy(make([]float64, 8), make([]float64, 16)); err == nil {
		t.Error("copy between slices of unequal length succeeded")
	}
	if _, err := streamRead(make([]float64, 12)); err == nil {
		t.Error("read of 12 elements (not a multiple of 8) succeeded")
	}
}

package cpu

import (
	"errors"
	"testing"
)

func TestArrayBudget(t *testing.T) {
	for _, c := range []struct {
		name                  string
		limit, available, llc uint64
		llcs                  uint64 // Effort.ArrayLLCs
		want                  uint64
	}{
		{"big host, small cache: 1 GiB", 0, 64 * gib, 32 * mib, 0, 1 * gib},
		{"unknown cache: 1 GiB", 0, 64 * gib, 0, 0, 1 * gib},
		{"300 MiB cache: 4x per array", 0, 64 * gib, 300 * mib, 0, 3600 * mib},
		{"300 MiB cache, a quarter caps", 0, 8 * gib, 300 * mib, 0, 2 * gib},
		{"small host: a quarter", 0, 2 * gib, 32 * mib, 0, 512 * mib},
		{"quick, 480 MiB cache, 22.5 GiB free: 2x per array", 0, 22*gib + gib/2, 480 * mib, quickEffort.ArrayLLCs, 2880 * mib},
		{"quick, small cache: 64 MiB arrays", 0, 64 * gib, 16 * mib, quickEffort.ArrayLLCs, 192 * mib},
		{"quick, 32 MiB cache", 0, 64 * gib, 32 * mib, quickEffort.ArrayLLCs, 192 * mib},
		{"quick, 300 MiB cache: 2x per array", 0, 64 * gib, 300 * mib, quickEffort.ArrayLLCs, 1800 * mib},
		{"quick, small host", 0, 512 * mib, 0, quickEffort.ArrayLLCs, 128 * mib},
		{"limit below half", 300 * mib, 4 * gib, 300 * mib, 0, 300 * mib},
		{"limit above the default is honoured", 3 * gib, 64 * gib, 0, 0, 3 * gib},
		{"limit capped at half available", 3 * gib, 4 * gib, 0, 0, 2 * gib},
		{"limit, available unknown", 300 * mib, 0, 0, quickEffort.ArrayLLCs, 300 * mib},
	} {
		got, err := arrayBudget(c.limit, c.available, c.llc, c.llcs)
		if err != nil || got != c.want {
			t.Errorf("%s: arrayBudget(%d, %d, %d, %d) = %d, %v; want %d", c.name, c.limit, c.available, c.llc, c.llcs, got, err, c.want)
		}
	}
	if _, err := arrayBudget(0, 0, 0, 0); err == nil {
		t.Error("arrayBudget without limit or MemAvailable succeeded")
	}
	if minArray(0) != minArrayBytes || minArray(300*mib) != 600*mib {
		t.Errorf("minArray: %d, %d", minArray(0), minArray(300*mib))
	}
}

func TestLayoutArrays(t *testing.T) {
	for _, threads := range []int{1, 2, 3, 7, 64, 192} {
		l, err := layoutArrays(1*gib, threads, minArrayBytes)
		if err != nil {
			t.Fatalf("%d threads: %v", threads, err)
		}
		if l.perThread%sliceStep != 0 || l.perThread%vectorStep != 0 {
			t.Errorf("%d threads: slice of %d elements is not a multiple of %d", threads, l.perThread, sliceStep)
		}
		if total := streamArrays * l.arrayBytes(); total > 1*gib || total < 1*gib-uint64(threads)*sliceStep*elementBytes*streamArrays {
			t.Errorf("%d threads: arrays take %d bytes of a 1 GiB budget", threads, total)
		}
		lo, hi := l.bounds(threads - 1)
		if hi != l.elements() || hi-lo != l.perThread {
			t.Errorf("%d threads: last slice [%d, %d) of %d elements", threads, lo, hi, l.elements())
		}
	}
	if _, err := layoutArrays(3*minArrayBytes, 4, minArrayBytes); err != nil {
		t.Errorf("the minimum budget failed: %v", err)
	}
	for _, budget := range []uint64{0, 3*minArrayBytes - 1, 100 * mib} {
		if _, err := layoutArrays(budget, 4, minArrayBytes); !errors.Is(err, ErrTooLittleMemory) {
			t.Errorf("layoutArrays(%d) = %v, want ErrTooLittleMemory", budget, err)
		}
	}
	if _, err := layoutArrays(1*gib, 4, minArray(300*mib)); !errors.Is(err, ErrTooLittleMemory) {
		t.Errorf("341 MiB arrays against a 300 MiB cache: %v, want ErrTooLittleMemory", err)
	}
	if _, err := layoutArrays(1*gib, 0, minArrayBytes); err == nil {
		t.Error("layoutArrays with 0 threads succeeded")
	}
}

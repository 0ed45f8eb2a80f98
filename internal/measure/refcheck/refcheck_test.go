package refcheck

import (
	"errors"
	"math"
	"strings"
	"testing"
)

var errFailed = errors.New("check failed")

func TestCompareAndErr(t *testing.T) {
	r := New()
	r.Compare(1, 1, 0, 0)
	r.Compare(1.5, 1.5*(1+1e-9), 1e-6, 1)
	r.Compare(0, 0, 0, 2) // equal zeros: no 0/0
	if r.Bad != -1 || r.Checked != 3 || r.MaxRel == 0 || math.IsNaN(r.MaxRel) || r.Err(errFailed, "k", 1e-6) != nil {
		t.Fatalf("within tolerance: %+v", r)
	}
	r.Compare(2, 1, 1e-6, 3)
	r.Compare(3, 1, 1e-6, 4)
	err := r.Err(errFailed, "triad", 1e-6)
	if !errors.Is(err, errFailed) || r.Bad != 3 || r.Got != 2 || !strings.Contains(err.Error(), "triad: value 3 is 2, want 1") {
		t.Fatalf("out of tolerance: %+v, %v", r, err)
	}
	r.Compare(math.NaN(), 1, 1e-6, 5)
	if r.MaxRel != 2 || r.Bad != 3 {
		t.Errorf("NaN changed the record: %+v", r)
	}
}

func TestMergeKeepsTheLowestBad(t *testing.T) {
	a, b := New(), New()
	a.Compare(5, 1, 0, 90)
	b.Compare(1, 1, 0, 1)
	b.Compare(7, 1, 0, 40)
	m := MergeAll([]Result{a, b, New()})
	if m.Bad != 40 || m.Got != 7 || m.Checked != 3 || m.MaxRel != 6 {
		t.Errorf("merged %+v", m)
	}
}

func TestParallelCoversEveryIndexOnce(t *testing.T) {
	for _, n := range []uint64{0, 1, 7, 1000} {
		r := Parallel(n, func(lo, hi uint64) Result {
			p := New()
			for i := lo; i < hi; i++ {
				want := float64(i)
				got := want
				if i == 5 || i == 600 {
					got++
				}
				p.Compare(got, want, 0, int64(i))
			}
			return p
		})
		wantBad := int64(-1)
		if n > 5 {
			wantBad = 5
		}
		if r.Checked != n || r.Bad != wantBad {
			t.Errorf("n=%d: checked %d, bad %d (want %d)", n, r.Checked, r.Bad, wantBad)
		}
	}
}

package stats

import (
	"errors"
	"math"
	"testing"
)

func TestMedian(t *testing.T) {
	xs := []float64{3, 1, 2, 10}
	if m := Median(xs); m != 2.5 {
		t.Fatalf("median of %v = %v, want 2.5", xs, m)
	}
	if xs[0] != 3 {
		t.Fatal("Median sorted its input")
	}
	if m := Median([]float64{5, 1, 4}); m != 4 {
		t.Fatalf("odd median = %v, want 4", m)
	}
}

func TestSummarize(t *testing.T) {
	s, err := Summarize([]float64{3, 1, 2, 10})
	if err != nil || s.Samples != 4 || s.Median != 2.5 || s.Min != 1 || s.Max != 10 {
		t.Fatalf("Summarize = %+v, %v", s, err)
	}
	for _, bad := range [][]float64{nil, {1, 0}, {-1}, {math.NaN()}, {math.Inf(1)}} {
		if _, err := Summarize(bad); !errors.Is(err, ErrBadSample) {
			t.Errorf("Summarize(%v) = %v, want ErrBadSample", bad, err)
		}
	}
}

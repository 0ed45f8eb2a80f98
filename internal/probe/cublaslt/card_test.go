package cublaslt

import (
	"testing"

	"github.com/everycycle/appraise/internal/measure/refcheck"
)

// Merging checks adds the counts, keeps the largest error, tolerance and
// ratio, and the lowest bad index; the card's record passes only a check
// that compared values and found none bad.
func TestCheckMergeAndSchema(t *testing.T) {
	a := Check{Result: refcheck.New(), MaxError: 1e-3, Tolerance: 4e-3, Worst: 0.25}
	a.Checked = 10
	b := Check{Result: refcheck.New(), MaxError: 2e-3, Tolerance: 3e-3, Worst: 0.5}
	b.Checked = 5
	a.Merge(b)
	if a.Checked != 15 || a.MaxError != 2e-3 || a.Tolerance != 4e-3 || a.Worst != 0.5 || a.Bad >= 0 {
		t.Fatalf("merged %+v", a)
	}
	if s := a.Schema(); !s.Passed || s.Elements != 15 || s.ErrorKind != "absolute" || s.Reference != "cpu" {
		t.Errorf("record %+v", s)
	}
	bad := Check{Result: refcheck.New()}
	bad.Compare(2, 1, 0, 3)
	a.Merge(bad)
	if a.Bad != 3 || a.Schema().Passed {
		t.Errorf("a bad value merged: %+v", a)
	}
	if s := (Check{Result: refcheck.New()}).Schema(); s.Passed || s.ErrorKind != "exact" {
		t.Errorf("nothing compared: %+v", s)
	}
}

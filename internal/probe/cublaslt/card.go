package cublaslt

import (
	"fmt"

	"github.com/everycycle/appraise/internal/measure/refcheck"
	"github.com/everycycle/appraise/internal/measure/roofline"
	"github.com/everycycle/appraise/schema"
)

// RooflinePrefix starts the name of a sweep in the card's roofline
// section, e.g. "gemm.blas.bf16".
const RooflinePrefix = "gemm.blas."

// Merge folds another part's check into c.
func (c *Check) Merge(o Check) {
	c.Result.Merge(o.Result)
	c.MaxError, c.Tolerance, c.Worst = max(c.MaxError, o.MaxError), max(c.Tolerance, o.Tolerance), max(c.Worst, o.Worst)
}

// Schema is the card's record of c, passed when values were compared and
// none was out of tolerance.
func (c Check) Schema() schema.Check {
	kind := "absolute"
	if c.Tolerance == 0 {
		kind = "exact"
	}
	return schema.Check{Reference: "cpu", Elements: c.Checked, ErrorKind: kind, MaxError: c.MaxError, Tolerance: c.Tolerance,
		Passed: c.Checked > 0 && c.Bad < 0}
}

// Figure is a measured entry as the card carries it: its shape is the whole
// problem and its kernel the algorithm kept.
func (e Entry) Figure() schema.PrecisionThroughput {
	p := e.Precision
	t := schema.PrecisionThroughput{
		Operation:       "gemm",
		InputType:       p.A.String(),
		AccumulatorType: p.Acc.String(),
		OutputType:      p.Out.String(),
		MatrixEngine:    true,
		OpsPerS:         e.OpsPerS,
		OpCounting:      OpCounting,
		Shape: &schema.MatrixShape{M: e.M, N: e.N, K: e.K, Scope: "library",
			ProblemM: e.M, ProblemN: e.N, ProblemK: e.K, BColumnMajor: true},
		Kernel: fmt.Sprintf("algorithm %d of %d", e.Algorithm, len(e.Trials)),
		Probe:  ProbeName,
		Timing: schema.TimingGPUTimestamp,
		Check:  e.Check.Schema(),
	}
	if p.B != p.A {
		t.InputTypeB = p.B.String()
	}
	if p.Scaling.Block() > 0 {
		t.Scaling = p.Scaling.String()
	}
	return t
}

// Ratio is a measured sweep as the card carries it, with its points'
// checks merged.
func (s RooflineSweep) Ratio() (schema.RooflineRatio, error) {
	pts := make([]roofline.Point, len(s.Points))
	chk := Check{Result: refcheck.New()}
	for i, p := range s.Points {
		pts[i] = roofline.Point{Intensity: p.Intensity(), OpsPerS: p.OpsPerS.Median}
		chk.Merge(p.Check)
	}
	return roofline.Ratio(RooflinePrefix+s.Precision.Name, ProbeName, schema.TimingGPUTimestamp, pts, chk.Schema())
}

// Library is the card's record of the library that ran.
func (l LibraryInfo) Library() schema.Library {
	return schema.Library{Probe: ProbeName, Name: l.Name, Version: l.VersionString(), Path: l.Path, Source: l.Source}
}

// clip keeps a reason within the schema's 500 characters.
func clip(s string) string {
	if len(s) <= 500 {
		return s
	}
	return s[:496] + "…"
}

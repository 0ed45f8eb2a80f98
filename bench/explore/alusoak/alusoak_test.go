//go:build explore

// Package alusoak records what the rule alu-vs-soak-cold holds against
// each other on a --quick device: the ALU probe's fp32 FMA figure and the
// cold rate of the FMA soak that follows it (go test -tags explore -run
// RecordALUSoak -v ./bench/explore/alusoak/).
package alusoak

import (
	"testing"
	"time"

	"github.com/everycycle/appraise/bench/explore/exploretest"
	"github.com/everycycle/appraise/gpu"
	"github.com/everycycle/appraise/internal/platform/thermal"
)

// TestRecordALUSoak measures, EXPLORE_ROUNDS times (default 6), the fp32
// FMA ALU figure, a soak of EXPLORE_SOAK_S seconds (default 3, a software
// adapter's) and the ALU figure again, and logs each against the soak's
// cold and sustained rates as thermal.Compute sets them.
func TestRecordALUSoak(t *testing.T) {
	rounds := exploretest.EnvInt(t, "EXPLORE_ROUNDS", 6)
	soak := time.Duration(exploretest.EnvInt(t, "EXPLORE_SOAK_S", 3)) * time.Second
	d := exploretest.QuickDevice(t)
	alu := func() gpu.ALUResult {
		rs, err := gpu.MeasureALUKernels(t.Context(), d, []string{"fp32-fma"})
		if err != nil || len(rs) != 1 {
			t.Fatal(err, len(rs))
		}
		return rs[0]
	}
	var before, after, sustained []float64
	for i := range rounds {
		a := alu()
		s, err := gpu.Soak(t.Context(), d, gpu.SoakOptions{Duration: soak})
		if err != nil {
			t.Fatal(err)
		}
		b := alu()
		ps := make([]thermal.Point, len(s.Points))
		for j, p := range s.Points {
			ps[j] = thermal.Point{At: p.At, OpsPerS: p.OpsPerS}
		}
		e, err := thermal.Compute(s.Duration, ps, nil)
		if err != nil {
			t.Fatal(err)
		}
		cold := e.ColdOpsPerS
		before, after = append(before, a.OpsPerS.Median/cold), append(after, b.OpsPerS.Median/cold)
		sustained = append(sustained, e.SustainedOpsPerS/cold)
		t.Logf("round %d: ALU %.4g (%.4g–%.4g, %d samples), cold %.4g (first piece %.4g), ALU after %.4g: before/cold %.3f, after/cold %.3f, sustained/cold %.3f",
			i, a.OpsPerS.Median, a.OpsPerS.Min, a.OpsPerS.Max, a.OpsPerS.Samples, cold, s.Points[0].OpsPerS, b.OpsPerS.Median,
			a.OpsPerS.Median/cold, b.OpsPerS.Median/cold, e.SustainedOpsPerS/cold)
	}
	t.Logf("ALU before ÷ cold %s, after ÷ cold %s, sustained ÷ cold %s", exploretest.Spread(before), exploretest.Spread(after), exploretest.Spread(sustained))
}

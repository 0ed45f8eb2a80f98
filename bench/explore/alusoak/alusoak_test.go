//go:build explore

// Package alusoak records what the rule alu-vs-soak-cold holds against
// each other on a --quick device: the ALU probe's fp32 FMA figure and the
// cold rate of the FMA soak that follows it (go test -tags explore -run
// RecordALUSoak -v ./bench/explore/alusoak/).
package alusoak

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/everycycle/appraise/gpu"
	"github.com/everycycle/appraise/internal/measure/stats"
	"github.com/everycycle/appraise/internal/platform/thermal"
)

// TestRecordALUSoak measures, EXPLORE_ROUNDS times (default 6), the fp32
// FMA ALU figure, a soak of EXPLORE_SOAK_S seconds (default 3, a software
// adapter's) and the ALU figure again, and logs each against the soak's
// cold and sustained rates as thermal.Compute sets them.
func TestRecordALUSoak(t *testing.T) {
	rounds := envInt(t, "EXPLORE_ROUNDS", 6)
	soak := time.Duration(envInt(t, "EXPLORE_SOAK_S", 3)) * time.Second
	d := quickDevice(t)
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
	t.Logf("ALU before ÷ cold %s, after ÷ cold %s, sustained ÷ cold %s", spread(before), spread(after), spread(sustained))
}

// spread is xs's median and range.
func spread(xs []float64) string {
	return fmt.Sprintf("%.3f (%.3f–%.3f)", stats.Median(xs), slices.Min(xs), slices.Max(xs))
}

// quickDevice opens the first adapter with --quick's ALU sampling; it
// skips when there is none.
func quickDevice(t *testing.T) *gpu.Device {
	inst, err := gpu.NewInstance()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(inst.Release)
	adapters, err := inst.Adapters()
	if errors.Is(err, gpu.ErrNoAdapter) {
		t.Skip("no WebGPU adapter")
	}
	if err != nil {
		t.Fatal(err)
	}
	e := gpu.Effort{ALU: gpu.Sampling{BudgetS: 0.25, MinSamples: 3, MaxSamples: 5}}
	d, err := gpu.Open(inst, adapters[0], gpu.Options{Effort: e})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(d.Release)
	return d
}

func envInt(t *testing.T, name string, def int) int {
	s := os.Getenv(name)
	if s == "" {
		return def
	}
	v, err := strconv.Atoi(s)
	if err != nil {
		t.Fatalf("%s=%q: %v", name, s, err)
	}
	return v
}

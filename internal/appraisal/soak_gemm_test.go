//go:build linux && cgo

package appraisal

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/everycycle/appraise/gpu"
	"github.com/everycycle/appraise/internal/platform/thermal"
	"github.com/everycycle/appraise/internal/probe/cublaslt"
	"github.com/everycycle/appraise/schema"
)

// fakeTelemetry reads a fixed power and temperature and reports a power
// limit, or fails to.
type fakeTelemetry struct {
	powerW, limitW float64
	limitErr       error
}

func (f fakeTelemetry) Source() string { return "nvml" }
func (f fakeTelemetry) Sample() (thermal.Sample, error) {
	return thermal.Sample{PowerW: f.powerW, TemperatureC: 60}, nil
}
func (f fakeTelemetry) PowerLimitW() (float64, error) { return f.limitW, f.limitErr }

// With the fake library on its model clock, the GEMM soak holds bf16 (the
// first of the soak's precisions), records the load, its probe, its
// check, the power limit and the fraction of it drawn, and the card part
// validates; the soak's own rule is applied and recorded.
func TestGEMMSoakFake(t *testing.T) {
	o := fakeBLAS(t, "", false)
	t.Setenv("FAKE_LT_PEAK", "1e7") // 52 ms a GEMM on the model clock: two to a piece, quick on the host
	v := &schema.CapabilityVector{}
	g := cublaslt.SoakProbe{Duration: 600 * time.Millisecond, Load: o.Load, Size: 64, Telemetry: fakeTelemetry{powerW: 630, limitW: 700}}
	ran, err := runGEMMSoak(context.Background(), g, h200(), v)
	if err != nil || !ran {
		t.Fatalf("ran %v, err %v", ran, err)
	}
	if len(v.Probes) != 1 || v.Probes[0].Name != "cuda-cublaslt-soak" || v.Probes[0].Version != cublaslt.ProbeVersion {
		t.Errorf("probes %+v", v.Probes)
	}
	th := v.Thermal
	if th == nil {
		t.Fatalf("no thermal envelope; not measured %+v", v.NotMeasured)
	}
	if th.Probe != cublaslt.ProbeName || th.Workload != "gemm bf16 64x64x64" || th.Check == nil || th.Check.Elements != 64*64 || !th.Check.Passed {
		t.Errorf("probe %q, workload %q, check %+v", th.Probe, th.Workload, th.Check)
	}
	if th.PowerLimitW == nil || *th.PowerLimitW != 700 || th.PowerLimitFraction == nil || *th.PowerLimitFraction != 0.9 {
		t.Errorf("power limit %v, fraction %v; want 700 W and 0.9", th.PowerLimitW, th.PowerLimitFraction)
	}
	if err := schema.Validate(th); err != nil {
		t.Error(err)
	}
	// The model clock runs every piece at 1e7 ops/s: sustained equals cold.
	if th.ColdOpsPerS != th.SustainedOpsPerS || th.Throttled {
		t.Errorf("cold %g, sustained %g, throttled %v", th.ColdOpsPerS, th.SustainedOpsPerS, th.Throttled)
	}
	never := func([]figureSource, []schema.ConsistencyCheck) error {
		t.Error("re-measured a soak that agreed with itself")
		return nil
	}
	if err := settleConsistency(v, false, never); err != nil {
		t.Fatal(err)
	}
	if len(v.Consistency) != 1 || v.Consistency[0].Rule != "soak-sustained-vs-cold" || !v.Consistency[0].Agrees {
		t.Errorf("consistency %+v", v.Consistency)
	}
}

// A soak whose sustained rate runs past its cold rate is measured again,
// and fails a GPU's card when it still does.
func TestSettleSoakDisagrees(t *testing.T) {
	v := &schema.CapabilityVector{Thermal: &schema.ThermalEnvelope{ColdOpsPerS: 1e12, SustainedOpsPerS: 2e12, Probe: cublaslt.ProbeName}}
	again := 0
	err := settleConsistency(v, false, func(srcs []figureSource, _ []schema.ConsistencyCheck) error {
		if len(srcs) != 1 || srcs[0] != srcSoak {
			t.Errorf("re-ran %v, want the soak", srcs)
		}
		again++
		return nil
	})
	if !errors.Is(err, ErrInconsistent) || again != 1 {
		t.Fatalf("err %v after %d re-runs; want ErrInconsistent after one", err, again)
	}
	if len(v.Consistency) != 1 || v.Consistency[0].Agrees || !v.Consistency[0].Remeasured {
		t.Errorf("consistency %+v", v.Consistency)
	}
}

// A GEMM soak is held to the rules that read the soak's own figures: the
// WebGPU ALU rate, far from a GEMM soak's cold rate, is not held against
// it (it is against the FMA soak's).
func TestSettleSoakOwnRulesOnly(t *testing.T) {
	v := &schema.CapabilityVector{Thermal: &schema.ThermalEnvelope{ColdOpsPerS: 1e15, SustainedOpsPerS: 1e15, Probe: cublaslt.ProbeName},
		Precisions: []schema.PrecisionThroughput{{Operation: "fma", InputType: "fp32", Probe: gpu.ALUProbe{}.Name(), OpsPerS: schema.Stat{Median: 1e12}}}}
	if err := settleConsistency(v, false, func([]figureSource, []schema.ConsistencyCheck) error { t.Error("re-measured"); return nil }); err != nil {
		t.Fatal(err)
	}
	if len(v.Consistency) != 1 || v.Consistency[0].Rule != "soak-sustained-vs-cold" || v.Consistency[0].Remeasured {
		t.Errorf("consistency %+v", v.Consistency)
	}
}

// A library that offers none of the soak's precisions leaves the soak to
// the FMA (ran false) with the refusals as skips; a wrong GEMM output
// fails the appraisal.
func TestGEMMSoakFakeRefusals(t *testing.T) {
	o := fakeBLAS(t, "wrong", false)
	g := cublaslt.SoakProbe{Duration: 50 * time.Millisecond, Load: o.Load, Size: 64}
	if _, err := runGEMMSoak(context.Background(), g, h200(), &schema.CapabilityVector{}); !errors.Is(err, ErrProbe) || !errors.Is(err, cublaslt.ErrCheckFailed) {
		t.Errorf("wrong output: err %v; want ErrProbe wrapping ErrCheckFailed", err)
	}
	t.Setenv("FAKE_CUDA_BUSID", "0000:00:07.0")
	v := &schema.CapabilityVector{}
	if ran, err := runGEMMSoak(context.Background(), g, h200(), v); ran || err != nil || len(v.Skipped) != 1 || !strings.Contains(v.Skipped[0].Reason, "0000:00:06.0") {
		t.Errorf("no device: ran %v, err %v, skipped %+v", ran, err, v.Skipped)
	}
}

// The plan: fma never holds a GEMM; gemm on a device without the library
// is a usage error before probing; auto falls back; --soak 0 plans none.
func TestGEMMSoakPlanned(t *testing.T) {
	o := Options{BLAS: fakeBLAS(t, "", false)}
	for _, tc := range []struct {
		load    string
		c       Candidate
		soak    time.Duration
		want    bool
		wantErr bool
	}{
		{SoakLoadAuto, h200(), time.Second, true, false},
		{"", h200(), time.Second, true, false},
		{SoakLoadFMA, h200(), time.Second, false, false},
		{SoakLoadGEMM, h200(), 0, false, false},
		{SoakLoadAuto, Candidate{Adapter: h200().Adapter}, time.Second, false, false},
		{SoakLoadGEMM, Candidate{Adapter: h200().Adapter, Addr: "0"}, time.Second, false, true},
		{"heavy", h200(), time.Second, false, true},
	} {
		o.SoakLoad, o.Soak = tc.load, &tc.soak
		got, err := gemmSoakPlanned(tc.c, o, soakLength(tc.c, o))
		if got != tc.want || (err != nil) != tc.wantErr || (err != nil && !errors.Is(err, ErrSoakLoad)) {
			t.Errorf("load %q, soak %v, bus %q: planned %v, err %v", tc.load, tc.soak, tc.c.BusAddress, got, err)
		}
	}
}

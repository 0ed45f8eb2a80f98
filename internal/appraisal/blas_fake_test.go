//go:build linux && cgo

package appraisal

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/everycycle/appraise/internal/probe/cublaslt"
	"github.com/everycycle/appraise/internal/probe/cublaslt/fakelt"
	"github.com/everycycle/appraise/internal/render/figures"
	"github.com/everycycle/appraise/schema"
)

// fakeBLAS builds the fake cuBLASLt and returns options that load it and
// run small GEMMs; mode is its FAKE_LT_MODE.
func fakeBLAS(t *testing.T, mode string, all bool) BLASOptions {
	t.Helper()
	blas, driver, err := fakelt.Build(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("FAKE_LT_MODE", mode)
	t.Setenv("FAKE_CUDA_BUSID", h200().BusAddress)
	return BLASOptions{All: all, Load: cublaslt.LoadOptions{Path: blas, Driver: driver},
		Probe: cublaslt.Options{M: 64, N: 64, K: 64, WarmUp: time.Millisecond, Hold: time.Millisecond, Samples: 2, MinSample: time.Millisecond, Algorithms: 2}}
}

// With the fake library, the default run adds checked BLAS entries for
// the precisions without a Vulkan matrix entry, beside the coopmat ones,
// records the library and the not-offered combinations; every figure
// name is distinct and every added record valid. Progress is told each
// precision the probe tries, in the probe's order.
func TestBLASFakeMerge(t *testing.T) {
	v := coopmatCard()
	var steps []string
	if err := blasProbe(context.Background(), h200(), fakeBLAS(t, "", false), v, func(s string) { steps = append(steps, s) }); err != nil {
		t.Fatal(err)
	}
	var tried []string
	for _, p := range cublaslt.Precisions() {
		if !hasVulkanMatrix(coopmatCard(), p) {
			tried = append(tried, "gemm "+p.Name)
		}
	}
	if !slices.Equal(steps, tried) {
		t.Errorf("progress %q, want %q", steps, tried)
	}
	byName := map[string]schema.PrecisionThroughput{}
	for _, p := range v.Precisions {
		if p.Probe != cublaslt.ProbeName {
			continue
		}
		name := figures.PrecisionName(p)
		if _, dup := byName[name]; dup {
			t.Errorf("figure %s twice", name)
		}
		byName[name] = p
		if err := schema.Validate(&p); err != nil {
			t.Errorf("%s: %v", name, err)
		}
		if !p.MatrixEngine || p.OpCounting != "gemm=2mnk" || !p.Check.Passed || p.Shape.Scope != "library" {
			t.Errorf("%s: %+v", name, p)
		}
	}
	for _, want := range []string{"precision.gemm.fp8_e4m3-fp32-bf16.matrix.64x64x64", "precision.gemm.fp8_e5m2xfp8_e4m3-fp32-bf16.matrix.64x64x64",
		"precision.gemm.bf16-fp32-bf16.matrix.64x64x64", "precision.gemm.bf16-fp32.matrix.64x64x64", "precision.gemm.fp64.matrix.64x64x64",
		"precision.gemm.tf32-fp32.matrix.64x64x64", "precision.gemm.fp8_e4m3-fp32-bf16.block32_ue8m0.matrix.64x64x64",
		"precision.gemm.fp4_e2m1-fp32-bf16.block16_ue4m3.matrix.64x64x64"} {
		if _, ok := byName[want]; !ok {
			t.Errorf("no %s among %v", want, byName)
		}
	}
	if _, ok := byName["precision.gemm.fp16.matrix.64x64x64"]; ok {
		t.Error("fp16 measured by default although the card has a Vulkan fp16 matrix entry")
	}
	if len(v.Precisions)-len(byName) != len(coopmatCard().Precisions) {
		t.Error("an entry of the card was replaced")
	}
	libs := v.Environment.Libraries
	if len(libs) != 1 || libs[0].Probe != cublaslt.ProbeName || libs[0].Version != "13.1.0" || libs[0].Source != "option" {
		t.Errorf("libraries %+v", libs)
	}
	if err := schema.Validate(&libs[0]); err != nil {
		t.Error(err)
	}
	skipped := map[string]bool{}
	for _, s := range v.Skipped {
		skipped[s.Item] = true
		if err := schema.Validate(&s); err != nil {
			t.Error(err)
		}
	}
	if !skipped["gemm fp8_e5m2"] || !skipped["gemm fp16"] {
		t.Errorf("skips %+v", v.Skipped)
	}
	if len(v.Probes) != 1 || v.Probes[0].Name != cublaslt.ProbeName {
		t.Errorf("probes %+v", v.Probes)
	}

	// --blas measures fp16 too, beside the Vulkan entry.
	v = coopmatCard()
	if err := blasProbe(context.Background(), h200(), fakeBLAS(t, "", true), v, nil); err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, p := range v.Precisions {
		if p.InputType == "fp16" && p.AccumulatorType == "fp16" && p.MatrixEngine {
			n++
		}
	}
	if n != 2 {
		t.Errorf("%d fp16→fp16 matrix entries with --blas, want the Vulkan one and the library's", n)
	}
}

// A library whose GEMM fails its check fails the appraisal (ErrProbe,
// exit 5), never a figure.
func TestBLASFakeWrongFails(t *testing.T) {
	v := coopmatCard()
	err := blasProbe(context.Background(), h200(), fakeBLAS(t, "wrong", false), v, nil)
	if !errors.Is(err, ErrProbe) || !errors.Is(err, cublaslt.ErrCheckFailed) {
		t.Fatalf("err = %v, want ErrProbe wrapping ErrCheckFailed", err)
	}
}

// No CUDA device at the card's bus address: a skip saying so.
func TestBLASFakeOtherDevice(t *testing.T) {
	o := fakeBLAS(t, "", false)
	t.Setenv("FAKE_CUDA_BUSID", "0000:00:07.0")
	v := &schema.CapabilityVector{}
	if err := blasProbe(context.Background(), h200(), o, v, nil); err != nil {
		t.Fatal(err)
	}
	if len(v.Skipped) != 1 || len(v.Precisions) != 0 {
		t.Errorf("skips %+v, precisions %d", v.Skipped, len(v.Precisions))
	}
}

// The matrix roofline on the fake's model clock tells a degraded compute
// path from a uniformly slower device: a healthy device and one with half
// the peak both sit on their own roofline (ratio 1, the slower one with
// half the peak), while one doing uncounted work per output element
// (FAKE_LT_HIDDEN) falls below it where compute and memory both bind.
func TestBLASRooflineFakeDegraded(t *testing.T) {
	o := fakeBLAS(t, "", false)
	lib, err := cublaslt.Open(o.Load)
	if err != nil {
		t.Fatal(err)
	}
	defer lib.Close()
	sweep := func(peak, hidden string) schema.RooflineRatio {
		t.Helper()
		t.Setenv("FAKE_LT_PEAK", peak)
		t.Setenv("FAKE_LT_BW", "1e8")
		t.Setenv("FAKE_LT_HIDDEN", hidden)
		sw, err := lib.Roofline(context.Background(), h200().BusAddress, cublaslt.RooflineOptions{Precisions: []string{"bf16"},
			M: 128, N: 128, K: 1024, Samples: 2, MinSample: time.Millisecond, Hold: time.Millisecond})
		if err != nil {
			t.Fatal(err)
		}
		if len(sw) != 1 || sw[0].Status != cublaslt.StatusMeasured {
			t.Fatalf("sweeps %+v; want one, measured", sw)
		}
		r, err := sw[0].Ratio()
		if err != nil {
			t.Fatal(err)
		}
		if len(r.Points) != 6 {
			t.Fatalf("roofline %+v; want one sweep of 6 points (K 32 to 1024)", r)
		}
		if err := schema.Validate(&r); err != nil {
			t.Error(err)
		}
		if r.Precision != "gemm.blas.bf16" || r.Probe != cublaslt.ProbeName || !r.Check.Passed || r.Check.Elements == 0 {
			t.Errorf("sweep %q by %q, check %+v", r.Precision, r.Probe, r.Check)
		}
		return r
	}
	healthy, slow, degraded := sweep("4e9", "0"), sweep("2e9", "0"), sweep("4e9", "512")
	if healthy.Ratio < 0.99 || slow.Ratio < 0.99 {
		t.Errorf("ratio healthy %.3f, uniformly slower %.3f; both should sit on their roofline", healthy.Ratio, slow.Ratio)
	}
	if r := slow.PeakOpsPerS / healthy.PeakOpsPerS; r < 0.49 || r > 0.51 {
		t.Errorf("the slower device's peak is %.3f of the healthy one's, want 0.5", r)
	}
	if degraded.Ratio > 0.8 {
		t.Errorf("ratio of the degraded compute path %.3f: not told apart from a healthy one (%.3f)", degraded.Ratio, healthy.Ratio)
	}
}

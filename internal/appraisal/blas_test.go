package appraisal

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/everycycle/appraise/gpu"
	"github.com/everycycle/appraise/internal/probe/cublaslt"
	"github.com/everycycle/appraise/schema"
)

// h200 is an NVIDIA candidate with a bus address, as the H200 is found.
func h200() Candidate {
	return Candidate{Adapter: gpu.AdapterInfo{VendorID: nvidiaVendor, Name: "NVIDIA H200"}, BusAddress: "0000:00:06.0"}
}

// coopmatCard holds the cooperative-matrix entries the H200's driver
// offers (fp16→fp16, fp16→fp32, int8→int32) and a vector-ALU fp64 one.
func coopmatCard() *schema.CapabilityVector {
	e := func(in, acc string, matrix bool, probe string) schema.PrecisionThroughput {
		return schema.PrecisionThroughput{Operation: "gemm", InputType: in, AccumulatorType: acc, MatrixEngine: matrix, Probe: probe}
	}
	return &schema.CapabilityVector{Precisions: []schema.PrecisionThroughput{
		e("fp16", "fp16", true, "coopmat-gemm"), e("fp16", "fp32", true, "coopmat-gemm"),
		e("int8", "int32", true, "coopmat-gemm"), e("fp64", "fp64", false, "fma-fp64"),
	}}
}

func names(ps []cublaslt.Precision) []string {
	var out []string
	for _, p := range ps {
		out = append(out, p.Name)
	}
	return out
}

// By default the BLAS probe runs the precisions the card has no Vulkan
// matrix entry for, each left one saying so; --blas runs every one; a
// card without matrix entries runs every one.
func TestBLASPlan(t *testing.T) {
	all := names(cublaslt.Precisions())
	run, left, why := blasPlan(h200(), BLASOptions{}, coopmatCard())
	if why != "" {
		t.Fatalf("why %q", why)
	}
	want := []string{"fp16", "fp16_fp32acc", "fp16_fp32out", "int8"}
	var gotLeft []string
	for _, s := range left {
		gotLeft = append(gotLeft, strings.TrimPrefix(s.Item, "gemm "))
		if s.Probe != cublaslt.ProbeName || !strings.Contains(s.Reason, "--blas") {
			t.Errorf("skip %+v", s)
		}
	}
	if strings.Join(gotLeft, ",") != strings.Join(want, ",") {
		t.Errorf("left to Vulkan: %v, want %v", gotLeft, want)
	}
	if len(run)+len(left) != len(all) || !slices.Contains(run, "fp8_e4m3") || !slices.Contains(run, "fp64") || slices.Contains(run, "fp16") {
		t.Errorf("default runs %v", run)
	}
	if run, left, _ := blasPlan(h200(), BLASOptions{All: true}, coopmatCard()); len(run) != len(all) || len(left) != 0 {
		t.Errorf("--blas runs %v, leaves %v", run, left)
	}
	if run, _, _ := blasPlan(h200(), BLASOptions{}, &schema.CapabilityVector{}); len(run) != len(all) {
		t.Errorf("no coopmat: runs %v", run)
	}
}

// Only an NVIDIA device with a bus address is a candidate. A software
// adapter is not: asked for with --blas it says so on the card, else it
// says nothing.
func TestBLASPlanCandidates(t *testing.T) {
	sw := h200()
	sw.Adapter.Software = true
	amd := h200()
	amd.Adapter.VendorID = 0x1002
	nobus := h200()
	nobus.BusAddress = ""
	for _, c := range []struct {
		name string
		c    Candidate
		why  string
	}{{"software", sw, "software adapter has no vendor BLAS"}, {"amd", amd, "vendor 1002"}, {"no bus", nobus, "PCI address is unknown"}} {
		run, left, why := blasPlan(c.c, BLASOptions{All: true}, &schema.CapabilityVector{})
		if run != nil || left != nil || (c.why == "") != (why == "") || !strings.Contains(why, c.why) {
			t.Errorf("%s: run %v left %v why %q", c.name, run, left, why)
		}
	}
	v := &schema.CapabilityVector{}
	if err := blasProbe(context.Background(), sw, BLASOptions{}, v, nil); err != nil || len(v.Skipped) != 0 {
		t.Errorf("software adapter, --blas not given: %v, %+v", err, v.Skipped)
	}
	if err := blasProbe(context.Background(), sw, BLASOptions{All: true}, v, nil); err != nil || len(v.Skipped) != 1 ||
		v.Skipped[0].Probe != cublaslt.ProbeName || !strings.Contains(v.Skipped[0].Reason, "software adapter") {
		t.Errorf("software adapter, --blas: %v, %+v", err, v.Skipped)
	}
}

// No library: the card's skipped list says why, and nothing else changes.
func TestBLASNoLibrary(t *testing.T) {
	v := coopmatCard()
	before := len(v.Precisions)
	o := BLASOptions{Load: cublaslt.LoadOptions{Path: "/nonexistent/libcublasLt.so.13"}}
	if err := blasProbe(context.Background(), h200(), o, v, nil); err != nil {
		t.Fatal(err)
	}
	if len(v.Precisions) != before || len(v.Probes) != 0 || len(v.Environment.Libraries) != 0 {
		t.Errorf("the card changed: %+v", v)
	}
	last := v.Skipped[len(v.Skipped)-1]
	if last.Probe != cublaslt.ProbeName || last.Item != "gemm" || !strings.Contains(last.Reason, "/nonexistent/libcublasLt.so.13") {
		t.Errorf("skip %+v", last)
	}
	if err := schema.Validate(&last); err != nil {
		t.Error(err)
	}
}

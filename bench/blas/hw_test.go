//go:build linux && cgo && explore

// Package blas runs the cuBLASLt GEMM probe on a GPU host and prints its
// figures, for bench/blas.sh to set beside PyTorch's (go test -c -tags
// explore -o bin/cublaslt.test ./bench/blas/).
package blas

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/everycycle/appraise/internal/probe/cublaslt"
)

// TestHardware runs the real probe on a GPU host and prints a table; it is
// skipped unless APPRAISE_CUBLASLT_HW=1. bench/blas.sh runs it beside the
// PyTorch peer. Environment:
//
//	APPRAISE_CUBLASLT             the cuBLASLt file (else the probe's search)
//	APPRAISE_CUBLASLT_BUS         the device's PCI address (else device 0)
//	APPRAISE_CUBLASLT_SIZE        m = n = k (default 8192)
//	APPRAISE_CUBLASLT_PRECISIONS  comma-separated names (default all)
//	APPRAISE_CUBLASLT_JSON        a file for the figures, for bench/blas.sh
//	APPRAISE_CUBLASLT_DRIVER      the CUDA driver library (else libcuda.so.1)
//	APPRAISE_CUBLASLT_ALGORITHMS  algorithms asked for and tried (default 4)
//	APPRAISE_CUBLASLT_ROOFLINE    1: also time the K sweep of each measured
//	                              precision
func TestHardware(t *testing.T) {
	if os.Getenv("APPRAISE_CUBLASLT_HW") != "1" {
		t.Skip("set APPRAISE_CUBLASLT_HW=1 on a GPU host to run the real cuBLASLt probe")
	}
	opened := time.Now()
	lib, err := cublaslt.Open(cublaslt.LoadOptions{Driver: os.Getenv("APPRAISE_CUBLASLT_DRIVER")})
	if err != nil {
		t.Fatalf("open: %v", err)
	}
	defer lib.Close()
	fmt.Printf("cuBLASLt loaded in %.2f s\n", time.Since(opened).Seconds())
	o := cublaslt.Options{Seed: 1}
	if s := os.Getenv("APPRAISE_CUBLASLT_SIZE"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil {
			t.Fatal(err)
		}
		o.M, o.N, o.K = n, n, n
	}
	if s := os.Getenv("APPRAISE_CUBLASLT_PRECISIONS"); s != "" {
		o.Precisions = strings.Split(s, ",")
	}
	if s := os.Getenv("APPRAISE_CUBLASLT_ALGORITHMS"); s != "" {
		if o.Algorithms, err = strconv.Atoi(s); err != nil {
			t.Fatal(err)
		}
	}
	bus := os.Getenv("APPRAISE_CUBLASLT_BUS")
	r, err := lib.Run(context.Background(), bus, o)
	if err != nil {
		t.Errorf("probe: %v", err)
		r = runEach(t, lib, bus, o) // say which precisions work and which fail
	}
	info := r.Library
	fmt.Printf("cuBLASLt %s (cublasLtGetVersion %d) from %s [found by %s]\n", info.VersionString(), info.Version, info.Path, info.Source)
	printTable(os.Stdout, r)
	if os.Getenv("APPRAISE_CUBLASLT_ROOFLINE") == "1" {
		timeSweeps(t, lib, bus, o, r)
	}
	if f := os.Getenv("APPRAISE_CUBLASLT_JSON"); f != "" {
		if err := writeFigures(f, r); err != nil {
			t.Fatal(err)
		}
	}
}

// runEach runs the precisions one at a time after a failed Run, printing
// each failure, and returns the entries that succeeded.
func runEach(t *testing.T, lib *cublaslt.Library, bus string, o cublaslt.Options) cublaslt.Report {
	var r cublaslt.Report
	names := o.Precisions
	if names == nil {
		for _, p := range cublaslt.Precisions() {
			names = append(names, p.Name)
		}
	}
	start := time.Now()
	for _, name := range names {
		o.Precisions = []string{name}
		one, err := lib.Run(context.Background(), bus, o)
		if err != nil {
			fmt.Printf("%-14s FAILED: %v\n", name, err)
			continue
		}
		r.Probe, r.Library, r.BusID, r.Device = one.Probe, one.Library, one.BusID, one.Device
		r.Entries = append(r.Entries, one.Entries...)
	}
	r.ElapsedS = time.Since(start).Seconds()
	return r
}

// printTable writes one line per precision.
func printTable(w io.Writer, r cublaslt.Report) {
	fmt.Fprintf(w, "device %s (%s), probe %s, whole run %.2f s\n", r.Device, r.BusID, r.Probe, r.ElapsedS)
	fmt.Fprintf(w, "%-14s %-40s %9s %19s %9s %6s %6s %5s %s\n", "precision", "types", "TFLOP/s", "(min-max)", "ms/gemm", "warm s", "wall s", "algo", "check / reason")
	for _, e := range r.Entries {
		if e.Status != cublaslt.StatusMeasured {
			fmt.Fprintf(w, "%-14s %-40s %9s %19s %9s %6s %6.2f %5s %s: %s\n", e.Precision.Name, e.Precision, "-", "", "", "", e.ElapsedS, "", e.Status, e.Reason)
			continue
		}
		fmt.Fprintf(w, "%-14s %-40s %9.1f %19s %9.3f %6.2f %6.2f %5s %v\n", e.Precision.Name, e.Precision,
			e.OpsPerS.Median/1e12, fmt.Sprintf("(%.1f-%.1f)", e.OpsPerS.Min/1e12, e.OpsPerS.Max/1e12),
			e.Seconds.Median*1e3, e.WarmUpS, e.ElapsedS, fmt.Sprintf("%d/%d", e.Algorithm, len(e.Trials)), e.Check)
		for i, tr := range e.Trials {
			fmt.Fprintf(w, "    algorithm %d: trial %.1f TFLOP/s, workspace %d bytes, %v\n", i, e.OpsPerGEMM/tr.Seconds/1e12, tr.WorkspaceBytes, tr.Check)
		}
		ph := e.Phases
		fmt.Fprintf(w, "    wall s: draw %.3f load %.3f warm-up %.3f trials %.3f hold %.3f samples %.3f check %.3f\n",
			ph.DrawS, ph.LoadS, ph.WarmUpS, ph.TrialsS, ph.HoldS, ph.SamplesS, ph.CheckS)
	}
}

// figure is one precision in the JSON bench/blas_peer.py compares.
type figure struct {
	Status  string  `json:"status"`
	Reason  string  `json:"reason,omitempty"`
	Median  float64 `json:"tflops_median,omitempty"`
	Min     float64 `json:"tflops_min,omitempty"`
	Max     float64 `json:"tflops_max,omitempty"`
	Check   string  `json:"check,omitempty"`
	Size    int     `json:"size"`
	Library string  `json:"library"`
	// Algorithm is the kept algorithm's index; TrialTFLOPs each one's trial.
	Algorithm      *int      `json:"algorithm,omitempty"`
	TrialTFLOPs    []float64 `json:"trial_tflops,omitempty"`
	WorkspaceBytes uint64    `json:"workspace_bytes,omitempty"`
	ElapsedS       float64   `json:"elapsed_s"`
}

// writeFigures writes the report as {precision: figure}, plus "_run"
// with the whole run's wall time.
func writeFigures(path string, r cublaslt.Report) error {
	m := map[string]any{"_run": map[string]float64{"elapsed_s": r.ElapsedS}}
	for _, e := range r.Entries {
		f := figure{Status: string(e.Status), Reason: e.Reason, Median: e.OpsPerS.Median / 1e12,
			Min: e.OpsPerS.Min / 1e12, Max: e.OpsPerS.Max / 1e12, Check: checkString(e.Check), Size: e.M,
			Library: fmt.Sprintf("%s %s", r.Library.Path, r.Library.VersionString()), ElapsedS: e.ElapsedS}
		if e.Status == cublaslt.StatusMeasured {
			f.Algorithm, f.WorkspaceBytes = &e.Algorithm, e.WorkspaceBytes
			for _, tr := range e.Trials {
				f.TrialTFLOPs = append(f.TrialTFLOPs, e.OpsPerGEMM/tr.Seconds/1e12)
			}
		}
		m[e.Precision.Name] = f
	}
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, b, 0o644)
}

// timeSweeps prints, for each precision r measured, how long its K sweep
// takes.
func timeSweeps(t *testing.T, lib *cublaslt.Library, bus string, o cublaslt.Options, r cublaslt.Report) {
	for _, e := range r.Measured() {
		t0 := time.Now()
		sw, err := lib.Roofline(context.Background(), bus, cublaslt.RooflineOptions{Precisions: []string{e.Precision.Name}, M: o.M, N: o.N, K: o.K, Seed: o.Seed})
		if err != nil {
			t.Errorf("roofline %s: %v", e.Precision.Name, err)
			continue
		}
		fmt.Printf("sweep %-14s %.2f s, %d points, status %s\n", e.Precision.Name, time.Since(t0).Seconds(), len(sw[0].Points), sw[0].Status)
	}
}

// checkString summarises a GEMM's check, e.g. "ok 16384 values, worst 0.12 of tolerance".
func checkString(c cublaslt.Check) string {
	switch {
	case c.Checked == 0:
		return "not checked"
	case c.Bad >= 0:
		return fmt.Sprintf("FAILED at %d: %g, want %g", c.Bad, c.Got, c.Want)
	case c.Tolerance == 0:
		return fmt.Sprintf("ok %d values, exact", c.Checked)
	}
	return fmt.Sprintf("ok %d values, worst %.2g of tolerance", c.Checked, c.Worst)
}

package appraisal

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/everycycle/appraise/internal/measure/refcheck"
	"github.com/everycycle/appraise/internal/measure/roofline"
	"github.com/everycycle/appraise/internal/probe/cublaslt"
	"github.com/everycycle/appraise/schema"
)

// The vendor-library GEMM probe (issue 17's backend 3) beside the
// portable ones. Its entries sit next to the cooperative-matrix entries,
// each with its own probe name: nothing is replaced. By default it runs
// only the precisions the card has no Vulkan matrix-engine entry for (fp8
// on an H200, every precision on a card without VK_KHR_cooperative_matrix
// or without --coopmat); Options.BLAS runs every one it offers.

// nvidiaVendor is the PCI vendor id of the devices cuBLASLt can run on.
const nvidiaVendor = 0x10de

// blasItem is the skip item for the probe as a whole.
const blasItem = "gemm"

// BLASOptions configure the vendor-library GEMM probe.
type BLASOptions struct {
	// All runs every precision the library offers, also those the card
	// has a Vulkan matrix entry for (--blas).
	All bool
	// Load says where the library is looked for (--cublaslt, else
	// APPRAISE_CUBLASLT, else the search).
	Load cublaslt.LoadOptions
	// Probe overrides the probe's options (tests: small sizes); the zero
	// value is the probe's default.
	Probe cublaslt.Options
}

// blasOptions are o.BLAS with --quick's smaller GEMM (4096³) where the
// caller set no size.
func blasOptions(o Options) BLASOptions {
	b := o.BLAS
	if o.Quick && b.Probe.M == 0 && b.Probe.N == 0 && b.Probe.K == 0 {
		b.Probe.M, b.Probe.N, b.Probe.K = 4096, 4096, 4096
	}
	return b
}

// blasPlan decides whether the probe runs on c and for which precisions
// (nil: none). When it does not run at all, why says so for the card; a
// precision left to the Vulkan entry is listed in left.
func blasPlan(c Candidate, o BLASOptions, v *schema.CapabilityVector) (run []string, left []schema.Skip, why string) {
	switch {
	case c.Adapter.Software:
		return nil, nil, "" // a software adapter has no vendor library: nothing to say
	case vendorID(c) != nvidiaVendor:
		return nil, nil, fmt.Sprintf("no vendor BLAS probe for PCI vendor %04x yet (cuBLASLt runs on NVIDIA, %04x)", vendorID(c), nvidiaVendor)
	case c.BusAddress == "":
		return nil, nil, "the device's PCI address is unknown, so the CUDA device behind it cannot be matched"
	}
	for _, p := range cublaslt.Precisions() {
		if !o.All && hasVulkanMatrix(v, p) {
			left = append(left, schema.Skip{Probe: cublaslt.ProbeName, Item: blasItem + " " + p.Name,
				Reason: "the card has a Vulkan cooperative-matrix entry for " + matrixKey(p) + "; pass --blas to measure the vendor library beside it"})
			continue
		}
		run = append(run, p.Name)
	}
	return run, left, ""
}

// vendorID is c's PCI vendor: sysfs's when found there, else the
// adapter's.
func vendorID(c Candidate) uint32 {
	if c.PCI != nil {
		return uint32(c.PCI.VendorID)
	}
	return c.Adapter.VendorID
}

// hasVulkanMatrix says whether v holds a checked matrix-engine entry from
// another probe with p's input and accumulator types.
func hasVulkanMatrix(v *schema.CapabilityVector, p cublaslt.Precision) bool {
	return slices.ContainsFunc(v.Precisions, func(e schema.PrecisionThroughput) bool {
		return e.MatrixEngine && e.Probe != cublaslt.ProbeName && e.Operation == "gemm" && p.A == p.B &&
			e.InputType == p.A.String() && e.InputTypeB == "" && e.AccumulatorType == p.Acc.String()
	})
}

// matrixKey names p's input and accumulator types, e.g. "fp16→fp32".
func matrixKey(p cublaslt.Precision) string { return p.A.String() + "→" + p.Acc.String() }

// blasProbe runs the vendor-library probe on c as planned and adds its
// entries, skips and library to v. No library or no driver is a skip
// saying why; a failed check (or any other failure of a library that
// loaded) fails the appraisal like any probe.
func blasProbe(ctx context.Context, c Candidate, o BLASOptions, v *schema.CapabilityVector) error {
	precs, left, why := blasPlan(c, o, v)
	v.Skipped = append(v.Skipped, left...)
	if why != "" {
		v.Skipped = append(v.Skipped, blasSkip(why))
	}
	if len(precs) == 0 {
		return nil
	}
	lib, err := cublaslt.Open(o.Load)
	if errors.Is(err, cublaslt.ErrNoLibrary) || errors.Is(err, cublaslt.ErrNoDriver) {
		v.Skipped = append(v.Skipped, blasSkip(err.Error()))
		return nil
	}
	if err != nil {
		return fmt.Errorf("%w: %s: %w", ErrProbe, cublaslt.ProbeName, err)
	}
	defer lib.Close()
	po := o.Probe
	po.Precisions = precs
	rep, err := lib.Run(ctx, c.BusAddress, po)
	if errors.Is(err, cublaslt.ErrNoDevice) {
		v.Skipped = append(v.Skipped, blasSkip(err.Error()))
		return nil
	}
	if err != nil {
		return fmt.Errorf("%w: %s: %w", ErrProbe, cublaslt.ProbeName, err)
	}
	mergeBLAS(v, rep)
	var measured []string
	for _, e := range rep.Measured() {
		measured = append(measured, e.Precision.Name)
	}
	if len(measured) == 0 {
		return nil
	}
	ro := cublaslt.RooflineOptions{Precisions: measured, M: po.M, N: po.N, K: po.K, Seed: po.Seed}
	if k := cmp.Or(po.K, cublaslt.DefaultSize); k < 32<<(roofline.MinPoints-1) {
		v.Skipped = append(v.Skipped, schema.Skip{Probe: cublaslt.ProbeName, Item: "roofline",
			Reason: fmt.Sprintf("K %d gives fewer than %d reduction lengths (32 doubling up to K) to sweep", k, roofline.MinPoints)})
		return nil
	}
	sweeps, err := lib.Roofline(ctx, c.BusAddress, ro)
	if err != nil {
		return fmt.Errorf("%w: %s roofline: %w", ErrProbe, cublaslt.ProbeName, err)
	}
	return mergeBLASRoofline(v, sweeps)
}

// blasRooflinePrefix starts the name of a vendor-library GEMM sweep in
// the card's roofline section, e.g. "gemm.blas.bf16" (the library is in
// the sweep's probe and the card's environment.libraries).
const blasRooflinePrefix = "gemm.blas."

// mergeBLASRoofline adds each measured sweep to v's roofline section,
// held against the roofline its own points draw (internal/roofline), and
// records why a precision has none.
func mergeBLASRoofline(v *schema.CapabilityVector, sweeps []cublaslt.RooflineSweep) error {
	for _, s := range sweeps {
		if s.Status != cublaslt.StatusMeasured {
			v.Skipped = append(v.Skipped, schema.Skip{Probe: cublaslt.ProbeName, Item: "roofline " + s.Precision.Name, Reason: clip(s.Reason)})
			continue
		}
		r, err := blasRoofline(s)
		if err != nil {
			return fmt.Errorf("%w: %s roofline %s: %w", ErrProbe, cublaslt.ProbeName, s.Precision.Name, err)
		}
		v.Roofline = append(v.Roofline, r)
	}
	return nil
}

// blasRoofline is one sweep as the card carries it: the points' median
// throughputs against min(peak, bandwidth × intensity) from the same
// sweep, and the checks every point passed, merged.
func blasRoofline(s cublaslt.RooflineSweep) (schema.RooflineRatio, error) {
	pts := make([]roofline.Point, len(s.Points))
	chk := cublaslt.Check{Result: refcheck.New()}
	for i, p := range s.Points {
		pts[i] = roofline.Point{Intensity: p.Intensity(), OpsPerS: p.OpsPerS.Median}
		chk.Merge(p.Check.Result)
		chk.MaxError, chk.Tolerance, chk.Worst = max(chk.MaxError, p.Check.MaxError), max(chk.Tolerance, p.Check.Tolerance), max(chk.Worst, p.Check.Worst)
	}
	return matrixRoofline(blasRooflinePrefix+s.Precision.Name, cublaslt.ProbeName, schema.TimingGPUTimestamp, pts, blasCheck(chk))
}

// matrixRoofline holds a GEMM sweep's points against the roofline they
// draw themselves (internal/roofline) and names it for the card.
func matrixRoofline(name, probe string, timing schema.TimingMethod, pts []roofline.Point, chk schema.Check) (schema.RooflineRatio, error) {
	a, err := roofline.Analyse(pts)
	if err != nil {
		return schema.RooflineRatio{}, err
	}
	out := schema.RooflineRatio{Precision: name, Ratio: a.Ratio, RidgeRatio: a.RidgeRatio,
		PeakOpsPerS: a.Peak, BandwidthBytesPerS: a.Bandwidth, Probe: probe, Timing: timing, Check: chk}
	for i, p := range pts {
		out.Points = append(out.Points, schema.RooflinePoint{IntensityOpsPerByte: p.Intensity, OpsPerS: p.OpsPerS, ModelOpsPerS: a.Model[i]})
	}
	return out, nil
}

// mergeBLAS adds a report's measured entries beside whatever the card
// holds, its not-offered precisions as skips, and the library that ran.
func mergeBLAS(v *schema.CapabilityVector, rep cublaslt.Report) {
	for _, e := range rep.Measured() {
		v.Precisions = append(v.Precisions, blasEntry(e))
	}
	for _, s := range rep.Skips() {
		s.Reason = clip(s.Reason)
		v.Skipped = append(v.Skipped, s)
	}
	if len(rep.Measured()) > 0 {
		v.Probes = append(v.Probes, schema.ProbeRecord{Name: rep.Probe, Version: cublaslt.ProbeVersion})
	}
	l := rep.Library
	v.Environment.Libraries = append(v.Environment.Libraries, schema.Library{Probe: rep.Probe, Name: l.Name,
		Version: l.VersionString(), Path: l.Path, Source: l.Source})
}

// blasEntry turns a measured, checked entry into a card entry: a
// matrix-engine GEMM whose "shape" is the whole problem (the library
// chooses its own fragments) and whose kernel names the algorithm kept.
func blasEntry(e cublaslt.Entry) schema.PrecisionThroughput {
	p := e.Precision
	t := schema.PrecisionThroughput{
		Operation:       "gemm",
		InputType:       p.A.String(),
		AccumulatorType: p.Acc.String(),
		OutputType:      p.Out.String(),
		MatrixEngine:    true,
		OpsPerS:         e.OpsPerS,
		OpCounting:      cublaslt.OpCounting,
		Shape: &schema.MatrixShape{M: e.M, N: e.N, K: e.K, Scope: "library",
			ProblemM: e.M, ProblemN: e.N, ProblemK: e.K, BColumnMajor: true},
		Kernel: fmt.Sprintf("algorithm %d of %d", e.Algorithm, len(e.Trials)),
		Probe:  cublaslt.ProbeName,
		Timing: schema.TimingGPUTimestamp,
		Check:  blasCheck(e.Check),
	}
	if p.B != p.A {
		t.InputTypeB = p.B.String()
	}
	if p.Scaling.Block() > 0 {
		t.Scaling = p.Scaling.String()
	}
	return t
}

// blasCheck is the card's record of the check the output passed.
func blasCheck(c cublaslt.Check) schema.Check {
	kind := "absolute"
	if c.Tolerance == 0 {
		kind = "exact"
	}
	return schema.Check{Reference: "cpu", Elements: c.Checked, ErrorKind: kind, MaxError: c.MaxError, Tolerance: c.Tolerance, Passed: true}
}

// blasSkip is a skip of the whole probe.
func blasSkip(reason string) schema.Skip {
	return schema.Skip{Probe: cublaslt.ProbeName, Item: blasItem, Reason: clip(reason)}
}

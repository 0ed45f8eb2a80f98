package appraisal

import (
	"context"
	"fmt"
	"slices"

	"github.com/everycycle/appraise/internal/probe/cublaslt"
	"github.com/everycycle/appraise/schema"
)

// nvidiaVendor is the PCI vendor id of the devices cuBLASLt can run on.
const nvidiaVendor = 0x10de

// BLASOptions configure the vendor-library GEMM probe.
type BLASOptions struct {
	// All runs every precision offered, also those with a Vulkan entry (--blas).
	All bool
	// Load says where the library is looked for.
	Load cublaslt.LoadOptions
	// Probe overrides the probe's options (tests); zero is its default.
	Probe cublaslt.Options
}

// blasPlan says which precisions run on c, why none do, and which are left to Vulkan.
func blasPlan(c Candidate, o BLASOptions, v *schema.CapabilityVector) (run []string, left []schema.Skip, why string) {
	switch {
	case c.Adapter.Software && o.All:
		return nil, nil, "a software adapter has no vendor BLAS library (cuBLASLt runs on NVIDIA GPUs)"
	case c.Adapter.Software:
		return nil, nil, "" // not asked for, and a software adapter has no vendor library: nothing to say
	case vendorID(c) != nvidiaVendor:
		return nil, nil, fmt.Sprintf("no vendor BLAS probe for PCI vendor %04x yet (cuBLASLt runs on NVIDIA, %04x)", vendorID(c), nvidiaVendor)
	case c.BusAddress == "":
		return nil, nil, "the device's PCI address is unknown, so the CUDA device behind it cannot be matched"
	}
	for _, p := range cublaslt.Precisions() {
		if !o.All && hasVulkanMatrix(v, p) {
			left = append(left, schema.Skip{Probe: cublaslt.ProbeName, Item: cublaslt.Item + " " + p.Name,
				Reason: "the card has a Vulkan cooperative-matrix entry for " + matrixKey(p) + "; pass --blas to measure the vendor library beside it"})
			continue
		}
		run = append(run, p.Name)
	}
	return run, left, ""
}

// vendorID is c's PCI vendor from sysfs, else the adapter's.
func vendorID(c Candidate) uint32 {
	if c.PCI != nil {
		return uint32(c.PCI.VendorID)
	}
	return c.Adapter.VendorID
}

// hasVulkanMatrix says whether v holds a matrix-engine entry of p's types.
func hasVulkanMatrix(v *schema.CapabilityVector, p cublaslt.Precision) bool {
	return slices.ContainsFunc(v.Precisions, func(e schema.PrecisionThroughput) bool {
		return e.MatrixEngine && e.Probe != cublaslt.ProbeName && e.Operation == "gemm" && p.A == p.B &&
			e.InputType == p.A.String() && e.InputTypeB == "" && e.AccumulatorType == p.Acc.String()
	})
}

// matrixKey names p's input and accumulator types, e.g. "fp16→fp32".
func matrixKey(p cublaslt.Precision) string { return p.A.String() + "→" + p.Acc.String() }

// blasProbe runs the vendor-library probe on c into v; no library is a skip.
func blasProbe(ctx context.Context, c Candidate, o BLASOptions, v *schema.CapabilityVector, progress func(string)) error {
	precs, left, why := blasPlan(c, o, v)
	v.Skipped = append(v.Skipped, left...)
	if why != "" {
		v.Skipped = append(v.Skipped, cublaslt.Skip(why))
	}
	if len(precs) == 0 {
		return nil
	}
	p := cublaslt.GEMMProbe{Load: o.Load, Options: o.Probe}
	p.Options.Precisions = precs
	if p.Options.Progress == nil {
		p.Options.Progress = progress
	}
	contrib, err := p.Run(ctx, c.BusAddress)
	if err != nil {
		return fmt.Errorf("%w: %s: %w", ErrProbe, p.Name(), err)
	}
	return add(v, contrib)
}

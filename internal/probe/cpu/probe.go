package cpu

import (
	"context"

	"github.com/everycycle/appraise/internal/probe"
	"github.com/everycycle/appraise/schema"
)

// ProbeName is the CPU baseline's name in the box report's figures.
const ProbeName = "cpu-baseline"

// ProbeVersion changes whenever what the baseline measures, or how, changes.
const ProbeVersion = "2"

// Host is the device the baseline runs on: the host CPU, which needs no opening.
type Host struct{}

// Probe is the CPU baseline as a probe.Probe; it contributes the host baseline.
type Probe struct {
	Options Options // configures Measure
}

var _ probe.Probe[Host] = Probe{}

// Name is ProbeName.
func (Probe) Name() string { return ProbeName }

// Version is ProbeVersion.
func (Probe) Version() string { return ProbeVersion }

// Run measures the host CPU and returns its baseline, with the bandwidth's
// omission when arrays larger than the caches did not fit.
func (p Probe) Run(ctx context.Context, _ Host) (*probe.Contribution, error) {
	r, err := Measure(ctx, p.Options)
	if err != nil {
		return nil, err
	}
	c := &probe.Contribution{HostBaseline: r.Baseline()}
	if r.BandwidthOmitted != "" {
		c.NotMeasured = []schema.Omission{{Field: "host_baseline.bandwidth", Reason: r.BandwidthOmitted}}
	}
	return c, nil
}

// Baseline is r as the box report carries it, each figure with its check.
func (r *Result) Baseline() *schema.HostBaseline {
	h := &schema.HostBaseline{Threads: r.Threads, ISA: r.ISA, LastLevelCacheBytes: r.LastLevelCacheBytes}
	for _, b := range r.Bandwidth {
		h.Bandwidth = append(h.Bandwidth, schema.Bandwidth{Kernel: b.Kernel, BytesPerS: b.BytesPerS, ArrayBytes: b.ArrayBytes,
			BytesPerElement: b.BytesPerElement, Probe: ProbeName, Timing: r.Timing, Check: check(b.Checked, b.MaxError, b.Tolerance)})
	}
	for _, t := range r.Throughput {
		op := "fma"
		if !t.Vector {
			op = "fma_scalar"
		}
		h.Precisions = append(h.Precisions, schema.PrecisionThroughput{Operation: op, InputType: t.InputType, AccumulatorType: t.InputType,
			OpsPerS: t.OpsPerS, OpCounting: "fma=2", Probe: ProbeName, Timing: r.Timing, Check: check(t.Checked, t.MaxError, t.Tolerance)})
	}
	return h
}

// check is the card's record of a comparison with the closed form (tol 0: exact).
func check(elements uint64, maxErr, tol float64) schema.Check {
	kind := "relative"
	if tol == 0 {
		kind = "exact"
	}
	return schema.Check{Reference: "closed-form", Elements: elements, ErrorKind: kind, MaxError: maxErr, Tolerance: tol,
		Passed: elements > 0 && maxErr <= tol}
}

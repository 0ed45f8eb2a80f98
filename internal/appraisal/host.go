package appraisal

import (
	"context"
	"fmt"

	"github.com/everycycle/appraise/internal/probe/cpu"
	"github.com/everycycle/appraise/schema"
)

// hostBaseline measures the host CPU with all threads (the seed's CPU
// baseline) for the box report. It runs before the devices, with them idle.
func hostBaseline(ctx context.Context, quick bool) (*schema.HostBaseline, error) {
	r, err := cpu.Measure(ctx, cpu.Options{Quick: quick})
	if err != nil {
		return nil, fmt.Errorf("%w: cpu baseline: %w", ErrProbe, err)
	}
	const probe = "cpu-baseline"
	h := &schema.HostBaseline{Threads: r.Threads, ISA: r.ISA}
	for _, b := range r.Bandwidth {
		h.Bandwidth = append(h.Bandwidth, schema.Bandwidth{Kernel: b.Kernel, BytesPerS: b.BytesPerS, ArrayBytes: b.ArrayBytes,
			BytesPerElement: b.BytesPerElement, Probe: probe, Timing: r.Timing, Check: cpuCheck(b.Checked, b.MaxError, b.Tolerance)})
	}
	for _, t := range r.Throughput {
		op := "fma"
		if !t.Vector {
			op = "fma_scalar"
		}
		h.Precisions = append(h.Precisions, schema.PrecisionThroughput{Operation: op, InputType: t.InputType, AccumulatorType: t.InputType,
			OpsPerS: t.OpsPerS, OpCounting: "fma=2", Probe: probe, Timing: r.Timing, Check: cpuCheck(t.Checked, t.MaxError, t.Tolerance)})
	}
	return h, nil
}

// cpuCheck records a check against a closed form that passed.
func cpuCheck(elements uint64, maxErr, tol float64) schema.Check {
	kind := "relative"
	if tol == 0 {
		kind = "exact"
	}
	return schema.Check{Reference: "closed-form", Elements: elements, ErrorKind: kind, MaxError: maxErr, Tolerance: tol, Passed: true}
}

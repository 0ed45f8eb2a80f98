package gpu

import (
	"context"

	"github.com/everycycle/appraise/internal/probe"
	"github.com/everycycle/appraise/schema"
)

var (
	_ probe.PartProbe[*Device] = StreamProbe{}
	_ probe.PartProbe[*Device] = ALUProbe{}
	_ probe.PartProbe[*Device] = RooflineProbe{}
	_ probe.Probe[*Device]     = CapacityProbe{}
	_ probe.Probe[*Device]     = IntegrityProbe{}
	_ probe.Probe[*Device]     = SoakProbe{}
)

// StreamProbe records device-memory bandwidth per kernel of
// BandwidthKernels (MeasureBandwidthKernels).
type StreamProbe struct{}

// Name is the probe's name on the card.
func (StreamProbe) Name() string { return "webgpu-stream" }

// Version changes when what the probe measures, or how, changes.
func (StreamProbe) Version() string { return "2" }

// Run measures every bandwidth kernel.
func (p StreamProbe) Run(ctx context.Context, d *Device) (*probe.Contribution, error) {
	return p.RunParts(ctx, d, nil)
}

// RunParts measures the bandwidth kernels named (all when none are).
func (p StreamProbe) RunParts(ctx context.Context, d *Device, kernels []string) (*probe.Contribution, error) {
	rs, err := MeasureBandwidthKernels(ctx, d, kernels)
	if err != nil {
		return nil, err
	}
	c := &probe.Contribution{}
	for _, r := range rs {
		c.Bandwidth = append(c.Bandwidth, schema.Bandwidth{
			Kernel:                r.Kernel,
			BytesPerS:             r.BytesPerS,
			ArrayBytes:            r.ArrayBytes,
			BytesPerElement:       int(kernelBytes(r.Kernel)),
			ElementsPerInvocation: r.PerInvocation,
			Probe:                 p.Name(),
			Timing:                r.Timing,
			Check:                 r.check(),
		})
	}
	return c, nil
}

func (r BandwidthResult) check() schema.Check {
	kind := "relative"
	if r.Tolerance == 0 {
		kind = "exact"
	}
	return schema.Check{Reference: "cpu", Elements: r.Checked, ErrorKind: kind, MaxError: r.MaxRelError, Tolerance: r.Tolerance, Passed: true}
}

func kernelBytes(name string) uint64 {
	for _, k := range BandwidthKernels() {
		if k.Name == name {
			return k.BytesPerElement()
		}
	}
	return 0
}

// ALUProbe records vector-ALU throughput per row of ALUKernels
// (MeasureALUKernels).
type ALUProbe struct{}

// Name is the probe's name on the card.
func (ALUProbe) Name() string { return "webgpu-alu" }

// Version changes when what the probe measures, or how, changes.
func (ALUProbe) Version() string { return "2" }

// Run measures every ALU kernel.
func (p ALUProbe) Run(ctx context.Context, d *Device) (*probe.Contribution, error) {
	return p.RunParts(ctx, d, nil)
}

// RunParts measures the ALU kernels named (all when none are).
func (p ALUProbe) RunParts(ctx context.Context, d *Device, kernels []string) (*probe.Contribution, error) {
	rs, err := MeasureALUKernels(ctx, d, kernels)
	if err != nil {
		return nil, err
	}
	c := &probe.Contribution{}
	for _, r := range rs {
		c.Precisions = append(c.Precisions, schema.PrecisionThroughput{
			Operation: r.Operation, InputType: r.InputType, AccumulatorType: r.AccumulatorType,
			OpsPerS: r.OpsPerS, OpCounting: r.OpCounting, Probe: p.Name(), Timing: r.Timing,
			Check: r.check(),
		})
	}
	return c, nil
}

func (r ALUResult) check() schema.Check {
	return schema.Check{Reference: "closed-form", Elements: r.Checked, ErrorKind: r.ErrorKind, MaxError: r.MaxError, Tolerance: r.Tolerance, Passed: true}
}

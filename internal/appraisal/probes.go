package appraisal

import (
	"context"
	"slices"

	"github.com/everycycle/appraise/gpu"
	"github.com/everycycle/appraise/schema"
)

// streamProbe records sustained device-memory bandwidth per kernel.
type streamProbe struct{}

func (streamProbe) Name() string    { return "webgpu-stream" }
func (streamProbe) Version() string { return "1" }

func (p streamProbe) Run(ctx context.Context, d *gpu.Device, v *schema.CapabilityVector) error {
	return p.RunParts(ctx, d, v, nil)
}

// RunParts measures the bandwidth kernels named (all when none are).
func (p streamProbe) RunParts(ctx context.Context, d *gpu.Device, v *schema.CapabilityVector, kernels []string) error {
	rs, err := gpu.MeasureBandwidthKernels(ctx, d, kernels)
	if err != nil {
		return err
	}
	if v.Memory == nil {
		v.Memory = &schema.Memory{}
	}
	for _, r := range rs {
		v.Memory.Bandwidth = append(v.Memory.Bandwidth, schema.Bandwidth{
			Kernel:                r.Kernel,
			BytesPerS:             r.BytesPerS,
			ArrayBytes:            r.ArrayBytes,
			BytesPerElement:       int(kernelBytes(r.Kernel)),
			ElementsPerInvocation: r.PerInvocation,
			Probe:                 p.Name(),
			Timing:                r.Timing,
			Check:                 check(r.Checked, r.MaxRelError, r.Tolerance),
		})
	}
	return nil
}

func kernelBytes(name string) uint64 {
	for _, k := range gpu.BandwidthKernels() {
		if k.Name == name {
			return k.BytesPerElement()
		}
	}
	return 0
}

// launchProbe records empty-dispatch and 1 MiB upload latency.
type launchProbe struct{}

func (launchProbe) Name() string    { return "webgpu-launch" }
func (launchProbe) Version() string { return "1" }

func (p launchProbe) Run(ctx context.Context, d *gpu.Device, v *schema.CapabilityVector) error {
	r, err := gpu.MeasureLaunch(ctx, d)
	if err != nil {
		return err
	}
	v.LaunchOverhead = &schema.LaunchOverhead{
		EmptyDispatchS: r.EmptyDispatchRoundTripS,
		Upload1MiBS:    r.Upload1MiBS,
		DispatchPath:   r.DispatchPath,
		UploadPath:     r.UploadPath,
		Probe:          p.Name(),
		Timing:         r.Timing,
		// The dispatch counter must equal the number of dispatches, and each
		// upload must read back byte for byte: exact checks, no tolerance.
		Check: schema.Check{Reference: "closed-form", Elements: r.Dispatches + uint64(r.UploadsChecked), ErrorKind: "exact", Passed: true},
	}
	return nil
}

// check records a relative-error check against a CPU reference that
// passed; the gpu package returns an error, never a result, when a check
// fails. A zero tolerance means the comparison was exact.
func check(elements uint64, maxRel, tol float64) schema.Check {
	kind := "relative"
	if tol == 0 {
		kind = "exact"
	}
	return schema.Check{Reference: "cpu", Elements: elements, ErrorKind: kind, MaxError: maxRel, Tolerance: tol, Passed: true}
}

// aluProbe records vector-ALU throughput per precision (matrix_engine
// false), and why a precision the binding cannot compile was skipped.
type aluProbe struct{}

func (aluProbe) Name() string    { return "webgpu-alu" }
func (aluProbe) Version() string { return "1" }

func (p aluProbe) Run(ctx context.Context, d *gpu.Device, v *schema.CapabilityVector) error {
	return p.RunParts(ctx, d, v, nil)
}

// RunParts measures the ALU kernels named (all when none are).
func (p aluProbe) RunParts(ctx context.Context, d *gpu.Device, v *schema.CapabilityVector, kernels []string) error {
	rs, skips, err := gpu.MeasureALUKernels(ctx, d, kernels)
	if err != nil {
		return err
	}
	for _, r := range rs {
		v.Precisions = append(v.Precisions, schema.PrecisionThroughput{
			Operation: r.Operation, InputType: r.InputType, AccumulatorType: r.AccumulatorType,
			OpsPerS: r.OpsPerS, OpCounting: r.OpCounting, Probe: p.Name(), Timing: r.Timing,
			Check: schema.Check{Reference: "closed-form", Elements: r.Checked, ErrorKind: r.ErrorKind, MaxError: r.MaxError, Tolerance: r.Tolerance, Passed: true},
		})
	}
	for _, s := range skips {
		v.Skipped = append(v.Skipped, schema.Skip{Probe: p.Name(), Item: s.Operation + " " + s.InputType, Reason: s.Reason})
	}
	return nil
}

// rooflineProbe sweeps arithmetic intensity per precision and records how
// close each point sits to the roofline drawn from the sweep's own roofs.
type rooflineProbe struct {
	quick bool
}

func (rooflineProbe) Name() string    { return "webgpu-roofline" }
func (rooflineProbe) Version() string { return "3" }

// quickRooflineArray is each array's size in quick mode: the smallest the
// probe accepts.
const quickRooflineArray = 64 << 20

func (p rooflineProbe) Run(ctx context.Context, d *gpu.Device, v *schema.CapabilityVector) error {
	return p.RunParts(ctx, d, v, nil)
}

// RunParts sweeps the precisions named (all when none are).
func (p rooflineProbe) RunParts(ctx context.Context, d *gpu.Device, v *schema.CapabilityVector, precisions []string) error {
	o := gpu.RooflineOptions{Precisions: precisions}
	if p.quick {
		o.MaxArrayBytes = quickRooflineArray
	}
	rs, err := gpu.MeasureRoofline(ctx, d, o)
	if err != nil {
		return err
	}
	return recordRoofline(rs, p.Name(), v)
}

// recordRoofline puts the sweeps in v, replacing any earlier ones (a
// re-measurement), and says why the roofline is absent when the probe
// ran but swept nothing.
func recordRoofline(rs []gpu.RooflineResult, probe string, v *schema.CapabilityVector) error {
	v.Roofline = nil
	v.NotMeasured = slices.DeleteFunc(v.NotMeasured, func(o schema.Omission) bool { return o.Field == "roofline" })
	if len(rs) == 0 {
		v.NotMeasured = append(v.NotMeasured, schema.Omission{Field: "roofline", Reason: "the roofline probe ran but its sweep returned no precision"})
		return nil
	}
	for _, r := range rs {
		ratio, err := r.SchemaRatio()
		if err != nil {
			return err
		}
		ratio.Probe = probe
		v.Roofline = append(v.Roofline, ratio)
	}
	return nil
}

package vulkan

import (
	"context"

	"github.com/everycycle/appraise/internal/probe"
	"github.com/everycycle/appraise/schema"
)

// ProbeVersion is the version of every raw-Vulkan probe: it changes when
// what one measures, or how, changes.
const ProbeVersion = "1"

// VectorProbe is one vector-ALU kernel of plain SPIR-V through raw Vulkan,
// for the precisions WebGPU's compiler cannot reach (fp64, fp16, packed
// 8-bit dot products). It implements probe.Probe[*Device].
type VectorProbe struct {
	name, item, op, counting string
	run                      func(context.Context, *Device, Options) (Result, error)
	// Options steer the kernel (invocations, steps, timing).
	Options Options
}

// VectorProbes are the vector-ALU probes in the order the card lists
// them, each steered by o: fp64 FMA, fp16 FMA, signed and unsigned 4×8-bit
// dot products.
func VectorProbes(o Options) []VectorProbe {
	dot := func(signed bool) func(context.Context, *Device, Options) (Result, error) {
		return func(ctx context.Context, d *Device, o Options) (Result, error) { return RunDot4(ctx, d, o, signed) }
	}
	return []VectorProbe{
		{ProbeFMA64, "fma fp64", "fma", "fma=2", RunFMA64, o},
		{ProbeFMA16, "fma fp16", "fma", "fma=2", RunFMA16, o},
		{ProbeDot4I8, "dot4 int8", "dot4", "dot4=8", dot(true), o},
		{ProbeDot4U8, "dot4 uint8", "dot4", "dot4=8", dot(false), o},
	}
}

// Name is the probe's name, e.g. "fma-fp64".
func (p VectorProbe) Name() string { return p.name }

// Version is ProbeVersion.
func (VectorProbe) Version() string { return ProbeVersion }

// Item names what the probe measures as its skips name it, e.g. "fma fp64".
func (p VectorProbe) Item() string { return p.item }

// Run measures the kernel on d: a precision entry carrying the exact check
// the kernel passed. A device without the feature or extension the kernel
// needs gives a skip saying which; a failed check is an error.
func (p VectorProbe) Run(ctx context.Context, d *Device) (*probe.Contribution, error) {
	r, err := p.run(ctx, d, p.Options)
	switch {
	case isSkip(err):
		return &probe.Contribution{Skipped: []schema.Skip{{Probe: p.name, Item: p.item, Reason: err.Error()}}}, nil
	case err != nil:
		return nil, err
	}
	return &probe.Contribution{
		Precisions: []schema.PrecisionThroughput{precision(r, p.op, p.counting)},
		Probes:     []schema.ProbeRecord{{Name: r.Probe, Version: ProbeVersion}},
	}, nil
}

// precision turns a checked result into a throughput entry: op and
// counting are the operation and how it counts (e.g. "fma", "fma=2").
func precision(r Result, op, counting string) schema.PrecisionThroughput {
	p := schema.PrecisionThroughput{
		Operation:       op,
		InputType:       typeName(r.Shape.A),
		AccumulatorType: typeName(r.Shape.Result),
		MatrixEngine:    r.MatrixEngine,
		OpsPerS:         r.OpsPerSecond,
		OpCounting:      counting,
		Probe:           r.Probe,
		Timing:          r.Timing,
		Check:           r.Check.record(),
	}
	if !r.MatrixEngine {
		p.Kernel = r.Tile
	}
	if r.MatrixEngine {
		p.Shape = &schema.MatrixShape{M: int(r.Shape.M), N: int(r.Shape.N), K: int(r.Shape.K), Scope: r.Shape.Scope.String(),
			ProblemM: int(r.Problem.M), ProblemN: int(r.Problem.N), ProblemK: int(r.Problem.K),
			BColumnMajor: r.BColumnMajor, Tile: r.Tile}
	}
	return p
}

// record is the card's record of a check the kernel passed (a Check
// exists only for a kernel whose output matched its CPU reference): exact
// when it allowed no error, absolute otherwise.
func (c Check) record() schema.Check {
	kind := "absolute"
	if c.Tolerance == 0 {
		kind = "exact"
	}
	return schema.Check{Reference: "cpu", Elements: uint64(c.Elements), ErrorKind: kind, MaxError: c.MaxError, Tolerance: c.Tolerance, Passed: true}
}

// typeName maps a component type to the card's element type names
// (fp16, int8, fp8_e4m3, …).
func typeName(t ComponentType) string {
	switch n := t.String(); n {
	case "f16", "f32", "f64":
		return "fp" + n[1:]
	case "s8", "s16", "s32", "s64":
		return "int" + n[1:]
	case "u8", "u16", "u32", "u64":
		return "uint" + n[1:]
	case "e4m3", "e5m2":
		return "fp8_" + n
	default:
		return n
	}
}

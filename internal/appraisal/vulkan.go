package appraisal

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/everycycle/appraise/internal/probe/vulkan"
	"github.com/everycycle/appraise/internal/probe/webgpu"
	"github.com/everycycle/appraise/schema"
)

// matchVulkan finds the raw-Vulkan physical device behind a WebGPU
// adapter: the one with the same vendor, device, type and name (WebGPU's
// display name, since some drivers give the adapter a bare "0x0"), or the
// one a memory-usage proof tied it to (proven). When several match — two
// identical cards — and no proof says which, it returns nil, the indices
// it could be, and why: a guessed mapping would put one card's figures
// under another's identity.
func matchVulkan(a webgpu.AdapterInfo, infos []vulkan.DeviceInfo, proven map[int]int) (*vulkan.DeviceInfo, []int, string) {
	var found []int
	for i, v := range infos {
		if v.VendorID == a.VendorID && v.DeviceID == a.DeviceID && v.Type == a.Type && strings.TrimSpace(v.Name) == strings.TrimSpace(a.DisplayName()) {
			found = append(found, i)
		}
	}
	if p, ok := proven[a.Index]; ok && slices.Contains(found, p) {
		return &infos[p], nil, ""
	}
	switch len(found) {
	case 1:
		return &infos[found[0]], nil, ""
	case 0:
		return nil, nil, "no raw-Vulkan device matches this adapter"
	}
	return nil, found, fmt.Sprintf("%d identical raw-Vulkan devices match this adapter and no memory-usage proof said which", len(found))
}

// vulkanProbes runs the probes of the raw Vulkan module on the device
// behind c: the vector kernels and the host link always, cooperative-matrix
// GEMMs when asked.
func vulkanProbes(ctx context.Context, c Candidate, o Options, v *schema.CapabilityVector, again webgpuAgain) error {
	if c.Vulkan == nil {
		for _, k := range vectorKernels() {
			v.Skipped = append(v.Skipped, schema.Skip{Probe: k.probe, Item: k.item, Reason: c.vulkanWhy})
		}
		return nil
	}
	d, err := vulkan.Open(c.Vulkan.Index)
	if err != nil {
		return err
	}
	defer d.Release()
	opts := vulkan.Options{}
	if o.Progress != nil {
		opts.Progress = func(line string) { o.Progress(c.Addr, "vulkan: "+line) }
	}
	if c.Adapter.Software || o.Quick {
		opts.FMAInvocations, opts.FMASteps = 1<<14, 512
		opts.Size, opts.SearchSize = 512, 256
	}
	if c.Adapter.Software {
		// The host's cores run the vector kernels, fp16 emulated (about
		// a tenth of the fp32 rate on lavapipe): a quarter of the steps
		// keeps an fp16 dispatch near one timed sample instead of ten, and
		// every form and fold guard measures in a fraction of the time.
		opts.FMASteps = softwareFMASteps
	}
	for _, k := range vectorKernels() {
		o.stage(c.Addr, "vulkan: "+k.item)
		r, err := k.run(ctx, d, opts)
		switch {
		case errors.Is(err, vulkan.ErrFeatureMissing), errors.Is(err, vulkan.ErrExtensionMissing):
			v.Skipped = append(v.Skipped, schema.Skip{Probe: k.probe, Item: k.item, Reason: err.Error()})
		case err != nil:
			return fmt.Errorf("%w: %s: %w", ErrProbe, k.probe, err)
		default:
			v.Precisions = append(v.Precisions, precision(r, k.op, k.counting))
			v.Probes = appendProbe(v.Probes, schema.ProbeRecord{Name: r.Probe, Version: "1"})
		}
	}
	o.stage(c.Addr, "vulkan: host link and launch")
	to := transferOptions(c, o)
	if o.Progress != nil {
		to.Progress = func(step string) { o.Progress(c.Addr, "vulkan: "+step) }
	}
	if err := vulkanLink(ctx, d, to, v, again); err != nil {
		return err
	}
	if !o.CoopMat {
		v.Skipped = append(v.Skipped, schema.Skip{Probe: vulkan.ProbeCoopMatGEMM, Item: "matrix engine", Reason: "not requested (pass --coopmat)"})
		return nil
	}
	o.stage(c.Addr, "vulkan: cooperative-matrix GEMMs")
	return coopMatProbe(ctx, d, opts, c.Adapter.Software, v)
}

// softwareFMASteps is the steps per chain of a vector kernel's dispatch
// on a software adapter.
const softwareFMASteps = 128

// vectorKernel is a vector-ALU kernel of plain SPIR-V through raw Vulkan,
// for the precisions WebGPU's compiler here cannot reach (fp64, fp16,
// packed int8 dot products).
type vectorKernel struct {
	probe, item, op, counting string
	run                       func(context.Context, *vulkan.Device, vulkan.Options) (vulkan.Result, error)
}

func vectorKernels() []vectorKernel {
	dot := func(signed bool) func(context.Context, *vulkan.Device, vulkan.Options) (vulkan.Result, error) {
		return func(ctx context.Context, d *vulkan.Device, o vulkan.Options) (vulkan.Result, error) {
			return vulkan.RunDot4(ctx, d, o, signed)
		}
	}
	return []vectorKernel{
		{vulkan.ProbeFMA64, "fma fp64", "fma", "fma=2", vulkan.RunFMA64},
		{"fma-fp16", "fma fp16", "fma", "fma=2", vulkan.RunFMA16},
		{"dot4-int8", "dot4 int8", "dot4", "dot4=8", dot(true)},
		{"dot4-uint8", "dot4 uint8", "dot4", "dot4=8", dot(false)},
	}
}

func coopMatProbe(ctx context.Context, d *vulkan.Device, opts vulkan.Options, software bool, v *schema.CapabilityVector) error {
	res, skips, err := vulkan.Run(ctx, d, opts)
	if errors.Is(err, vulkan.ErrExtensionMissing) || errors.Is(err, vulkan.ErrFeatureMissing) {
		v.Skipped = append(v.Skipped, schema.Skip{Probe: vulkan.ProbeCoopMatGEMM, Item: "matrix engine",
			Reason: "matrix path unreachable: " + err.Error() + "; figures are vector-ALU only"})
		return nil
	}
	if err != nil {
		return fmt.Errorf("%w: %s: %w", ErrProbe, vulkan.ProbeCoopMatGEMM, err)
	}
	for _, r := range res {
		v.Precisions = append(v.Precisions, precision(r, "gemm", "gemm=2mnk"))
		v.Probes = appendProbe(v.Probes, schema.ProbeRecord{Name: r.Probe, Version: "1"})
	}
	for _, s := range skips {
		v.Skipped = append(v.Skipped, schema.Skip{Probe: s.Probe, Item: s.Shape.String(), Reason: s.Reason})
	}
	if software {
		// The K sweep builds one kernel per K, and a software adapter
		// compiles each at its first dispatch: on Mesa 26's lavapipe one
		// build outlasted the two-minute fence wait.
		for _, r := range fastestPerTypes(res) {
			v.Skipped = append(v.Skipped, schema.Skip{Probe: vulkan.ProbeCoopMatGEMM, Item: "roofline " + coopMatTypes(r.Shape),
				Reason: "not swept on a software adapter: the sweep builds a kernel per K, and its compiler takes minutes for each"})
		}
		return nil
	}
	return coopMatRoofline(ctx, d, opts, res, v)
}

// precision turns a checked raw-Vulkan result into a throughput entry.
func precision(r vulkan.Result, op, counting string) schema.PrecisionThroughput {
	p := schema.PrecisionThroughput{
		Operation:       op,
		InputType:       typeName(r.Shape.A),
		AccumulatorType: typeName(r.Shape.Result),
		MatrixEngine:    r.MatrixEngine,
		OpsPerS:         r.OpsPerSecond,
		OpCounting:      counting,
		Probe:           r.Probe,
		Timing:          r.Timing,
		Check:           rawCheck(r.Check),
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

func rawCheck(c vulkan.Check) schema.Check {
	kind := "absolute"
	if c.Tolerance == 0 {
		kind = "exact"
	}
	return schema.Check{Reference: "cpu", Elements: uint64(c.Elements), ErrorKind: kind, MaxError: c.MaxError, Tolerance: c.Tolerance, Passed: true}
}

// typeName maps a component type to the schema's element type names.
func typeName(t vulkan.ComponentType) string {
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

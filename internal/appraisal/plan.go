package appraisal

import (
	"context"
	"fmt"
	"time"

	"github.com/everycycle/appraise/coopmat/alu"
	"github.com/everycycle/appraise/coopmat/link"
	"github.com/everycycle/appraise/coopmat/vk"
	"github.com/everycycle/appraise/gpu"
	"github.com/everycycle/appraise/internal/platform/host"
	"github.com/everycycle/appraise/internal/probe/cpu"
	"github.com/everycycle/appraise/internal/probe/cublaslt"
	"github.com/everycycle/appraise/schema"
)

// DevicePlan is one device's part of a run's plan.
type DevicePlan struct {
	// Address and Name identify the device as `appraise devices` does.
	Address string `json:"address" validate:"required"`
	Name    string `json:"name" validate:"required"`
	// Software is true for a software adapter (lavapipe).
	Software bool `json:"software"`
	// Mode is "quick" or "full".
	Mode string `json:"mode" validate:"oneof=quick full"`
	// Schedule is "concurrent" or "serial", as environment.schedule.
	Schedule string `json:"schedule" validate:"oneof=serial concurrent"`
	// WebGPU names the portable probes, in the order they run.
	WebGPU []string `json:"webgpu_probes" validate:"min=1"`
	// MemoryLimitBytes is the most a probe may allocate, in bytes (0: default).
	MemoryLimitBytes uint64 `json:"memory_limit_bytes"`
	// Vulkan names the raw-Vulkan probes in order; none without a match.
	Vulkan []string `json:"vulkan_probes,omitempty"`
	// GEMMSize is the edge of the square GEMMs timed (0: each probe's default).
	GEMMSize int `json:"gemm_size,omitempty" validate:"gte=0"`
	// BLAS is which vendor-BLAS precisions run: all, none or without-vulkan-entry.
	BLAS string `json:"blas" validate:"oneof=all without-vulkan-entry none"`
	// SoakS is the thermal soak's length in seconds (0: no soak).
	SoakS float64 `json:"soak_s" validate:"gte=0"`
	// SoakLoad is what the soak holds: "gemm" or "fma" ("" with no soak).
	SoakLoad string `json:"soak_load,omitempty" validate:"omitempty,oneof=gemm fma"`
	// CrossCheck names the standard tools run, or says why none do.
	CrossCheck string `json:"cross_check" validate:"required"`
	// Skipped is what is known before probing not to run, with why.
	Skipped []schema.Skip `json:"skipped,omitempty" validate:"omitempty,dive"`
	// ExpectedS estimates the device's appraisal in seconds, soak included.
	ExpectedS float64 `json:"expected_s" validate:"gt=0"`

	gpu        gpu.Options
	roofline   gpu.RooflineProbe
	memtestCap uint64
	vulkan     vk.Options
	transfer   link.TransferOptions
	blas       BLASOptions
	soak       time.Duration
	gemmSoak   bool
	coopMat    bool
	// soakAsked is --soak-load as given; sysfsRoot is where hwmon is read.
	soakAsked string
	sysfsRoot string
	xc        *crossCheckPlan
}

// Expected probe times before the soak, in seconds (measured whole
// appraisals: docs/performance.md); nothing is decided from them.
const (
	expectedSoftwareQuickS   = 20
	expectedSoftwareFullS    = 110
	expectedGPUQuickS        = 33
	expectedGPUFullS         = 48
	expectedSoftwareCoopMatS = 530
	// The host's turn: the raw-Vulkan host link and launch.
	expectedGPUTurnQuickS = 2.5
	expectedGPUTurnFullS  = 2.8
)

// What --quick (and a software adapter) resolves to.
const (
	quickGEMMSize             = 4096
	quickRooflineArrayBytes   = 64 << 20
	quickMemtestBytes         = 256 << 20
	quickSoftwareMemtestBytes = 64 << 20
	softwareTransferBytes     = 64 << 20
	softwareFMASteps          = 128
	quickSoftwareStreamBytes  = 64 << 20
	quickSoftwareRooflineThin = 2
)

// quickWebGPU and quickCPU are what the probes do under --quick; a software
// adapter also takes the quickSoftware settings above.
var (
	quickWebGPU = gpu.Effort{
		ALU:                  gpu.Sampling{BudgetS: 0.25, MinSamples: 3, MaxSamples: 5},
		Bandwidth:            gpu.Sampling{BudgetS: 0.25, MinSamples: 3, MaxSamples: 5},
		Roofline:             gpu.Sampling{BudgetS: 0.1, MaxSamples: 5},
		BandwidthTrialRounds: 2, RooflineThin: 1, RooflineMinArrayBytes: 4 << 20,
	}
	quickCPU = cpu.Effort{Samples: 3, SampleS: 0.052, ArrayLLCs: 2}
)

// quickTransfer are the host link's brief sample counts and trial rounds.
var quickTransfer = link.TransferOptions{Samples: 3, LatencySamples: 21, TrialRounds: 3, LatencyTrialRounds: 7}

// Plan resolves o for every device in devs; errors wrap ErrSoakLoad.
func Plan(ctx context.Context, devs []Candidate, o Options) ([]DevicePlan, error) {
	rp, err := planRun(ctx, devs, o)
	return rp.devices, err
}

// runPlan is a run's plan: each device's, and the host baseline's options.
type runPlan struct {
	devices []DevicePlan
	cpu     cpu.Options
}

// planRun is Plan, with the host baseline's options; Appraise runs it.
func planRun(ctx context.Context, devs []Candidate, o Options) (runPlan, error) {
	o = o.withHostMemory(len(devs))
	xc, err := planCrossChecks(ctx, o.CrossCheck, devs)
	if err != nil {
		return runPlan{}, err
	}
	rp := runPlan{cpu: cpu.Options{Root: o.SysfsRoot}}
	if o.Quick {
		rp.cpu.Effort = quickCPU
	}
	for _, c := range devs {
		p, err := planDevice(c, o, xc, len(devs))
		if err != nil {
			return runPlan{}, err
		}
		rp.devices = append(rp.devices, p)
	}
	return rp, nil
}

// withHostMemory is o with each of n devices' share of the host memory.
func (o Options) withHostMemory(n int) Options {
	if m, err := host.ReadMemory(o.SysfsRoot); err == nil {
		o.hostUsable = m.UsableBytes
		if concurrent(o, n) {
			o.hostUsable /= uint64(n)
		}
	}
	return o
}

// planDevice resolves o for c, one of a run of n devices.
func planDevice(c Candidate, o Options, xc *crossCheckPlan, n int) (DevicePlan, error) {
	soak := soakLength(c, o)
	gemmSoak, err := gemmSoakPlanned(c, o, soak)
	if err != nil {
		return DevicePlan{}, err
	}
	p := DevicePlan{Address: c.Addr, Name: c.Adapter.DisplayName(), Software: c.Adapter.Software, Mode: "full",
		gpu: deviceOptions(c, o), vulkan: vulkanOptions(c, o), transfer: transferOptions(c, o), blas: blasOptions(o),
		soak: soak, gemmSoak: gemmSoak, coopMat: o.CoopMat, Schedule: scheduleOf(o, n),
		soakAsked: o.SoakLoad, sysfsRoot: o.SysfsRoot, xc: xc}
	if o.Quick {
		p.Mode = "quick"
		p.roofline.MaxArrayBytes, p.memtestCap = quickRooflineArrayBytes, quickMemtestBytes
		if c.Adapter.Software {
			p.memtestCap = quickSoftwareMemtestBytes
		}
	}
	p.MemoryLimitBytes = p.gpu.MemoryLimit
	for _, pr := range firstProbes(p) {
		p.WebGPU = append(p.WebGPU, pr.Name())
	}
	p.WebGPU = append(p.WebGPU, gpu.CapacityProbe{}.Name(), gpu.IntegrityProbe{}.Name())
	p.planVulkan(c, o)
	p.planBLAS(c, o)
	p.planSoak()
	p.CrossCheck = xc.describe(c)
	p.ExpectedS = p.expected(o)
	return p, schema.Validate(&p)
}

// planVulkan names the raw-Vulkan probes c runs, or why none do.
func (p *DevicePlan) planVulkan(c Candidate, o Options) {
	if c.Vulkan == nil {
		p.Skipped = append(p.Skipped, schema.Skip{Probe: "vulkan", Item: "raw-Vulkan probes", Reason: c.vulkanWhy})
		return
	}
	for _, pr := range alu.VectorProbes(alu.Options{}) {
		p.Vulkan = append(p.Vulkan, pr.Item())
	}
	p.Vulkan = append(p.Vulkan, "host link and launch")
	if !o.CoopMat {
		p.Skipped = append(p.Skipped, schema.Skip{Probe: vk.ProbeCoopMatGEMM, Item: "matrix engine", Reason: "not requested (pass --coopmat)"})
		return
	}
	p.Vulkan = append(p.Vulkan, vk.ProbeCoopMatGEMM)
	p.GEMMSize = int(p.vulkan.Size)
}

// planBLAS says which vendor-BLAS precisions c runs.
func (p *DevicePlan) planBLAS(c Candidate, o Options) {
	_, _, why := blasPlan(c, p.blas, &schema.CapabilityVector{})
	switch {
	case why != "":
		p.BLAS = "none"
		p.Skipped = append(p.Skipped, cublaslt.Skip(why))
	case c.Adapter.Software:
		p.BLAS = "none"
	case o.BLAS.All:
		p.BLAS = "all"
	default:
		p.BLAS = "without-vulkan-entry"
	}
	if p.BLAS != "none" && p.GEMMSize == 0 {
		p.GEMMSize = p.blas.Probe.M
	}
}

// planSoak records the soak's length and load.
func (p *DevicePlan) planSoak() {
	p.SoakS = p.soak.Seconds()
	switch {
	case p.soak == 0:
		p.SoakLoad = ""
	case p.gemmSoak:
		p.SoakLoad = SoakLoadGEMM
	default:
		p.SoakLoad = SoakLoadFMA
	}
}

// expected is the estimate of ExpectedS.
func (p *DevicePlan) expected(o Options) float64 {
	var s float64
	switch {
	case p.Software && o.Quick:
		s = expectedSoftwareQuickS
	case p.Software:
		s = expectedSoftwareFullS
	case o.Quick:
		s = expectedGPUQuickS
	default:
		s = expectedGPUFullS
	}
	if p.Software && o.CoopMat && len(p.Vulkan) > 0 {
		s += expectedSoftwareCoopMatS
	}
	return s + p.SoakS
}

// turnS is the part of ExpectedS in the host's turn.
func (p *DevicePlan) turnS() float64 {
	switch {
	case p.Software:
		return 0
	case p.Mode == "quick":
		return expectedGPUTurnQuickS
	default:
		return expectedGPUTurnFullS
	}
}

// ExpectedWallS estimates a run of plans in seconds.
func ExpectedWallS(plans []DevicePlan) float64 {
	var sum, software, longest, turns, longestTurn float64
	for _, p := range plans {
		sum += p.ExpectedS
		switch {
		case p.Software:
			software += p.ExpectedS
		default:
			turns += p.turnS()
			if p.ExpectedS > longest {
				longest, longestTurn = p.ExpectedS, p.turnS()
			}
		}
	}
	if len(plans) == 0 || plans[0].Schedule == ScheduleSerial {
		return sum
	}
	return software + longest + turns - longestTurn
}

// describe says what the cross-check does on c.
func (xc *crossCheckPlan) describe(c Candidate) string {
	t, ok := xc.tools[c.Addr]
	if !ok {
		return "none: " + xc.why[c.Addr]
	}
	return fmt.Sprintf("%s and %s", t.BabelStream, t.Mixbench)
}

// deviceOptions are the options c's WebGPU device is opened with.
func deviceOptions(c Candidate, o Options) gpu.Options {
	opts := gpu.Options{MemoryLimit: memoryLimit(c, o.hostUsable)}
	if o.Quick {
		opts.Effort = quickWebGPU
	}
	if o.Quick && c.Adapter.Software {
		opts.Effort.RooflineThin, opts.Effort.BandwidthMaxArrayBytes = quickSoftwareRooflineThin, quickSoftwareStreamBytes
	}
	return opts
}

// transferOptions are c's host link options.
func transferOptions(c Candidate, o Options) link.TransferOptions {
	var to link.TransferOptions
	if c.Adapter.Software || o.Quick {
		to = quickTransfer
	}
	if c.Adapter.Software {
		to.Bytes, to.Warmup = softwareTransferBytes, gpu.SoftwareWarmUp
		to.NoKernelRoutes = o.Quick
	}
	return to
}

// vulkanOptions are c's raw-Vulkan sizes (zero: defaults).
func vulkanOptions(c Candidate, o Options) vk.Options {
	opts := vk.Options{Progress: newWorker(c.Addr, o).lines("vulkan: ")}
	switch {
	case c.Adapter.Software:
		opts.FMAInvocations, opts.FMASteps = 1<<14, softwareFMASteps
		opts.Size, opts.SearchSize = 512, 256
	case o.Quick:
		opts.Size = quickGEMMSize
	}
	return opts
}

// blasOptions are o.BLAS with --quick's GEMM size where none was set.
func blasOptions(o Options) BLASOptions {
	b := o.BLAS
	if o.Quick && b.Probe.M == 0 && b.Probe.N == 0 && b.Probe.K == 0 {
		b.Probe.M, b.Probe.N, b.Probe.K = quickGEMMSize, quickGEMMSize, quickGEMMSize
	}
	return b
}

// soakLength is --soak, else the mode's default; 0 means no soak.
func soakLength(c Candidate, o Options) time.Duration {
	d := DefaultSoak
	switch {
	case o.Soak != nil:
		d = *o.Soak
	case o.Quick:
		d = QuickSoak
	}
	if c.Adapter.Software && d > softwareSoak {
		d = softwareSoak
	}
	return d
}

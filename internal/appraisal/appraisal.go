// Package appraisal runs an appraisal: it opens each selected device, runs
// every probe on it, assembles and validates the capability vectors, and
// turns a run into signed card and box report files.
//
// Start with Run; then Sign and WriteAll.
package appraisal

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"time"

	"github.com/everycycle/appraise/gpu"
	"github.com/everycycle/appraise/internal/crosscheck"
	"github.com/everycycle/appraise/internal/platform/host"
	"github.com/everycycle/appraise/internal/platform/nvml"
	"github.com/everycycle/appraise/internal/probe/cpu"
	"github.com/everycycle/appraise/schema"
)

// ErrProbe wraps every probe or check failure: nothing is signed then.
var ErrProbe = errors.New("probe failed")

// softwareMemoryLimit caps the memory a probe may take on a software
// adapter, whose "device memory" is the host's own: at most this, and at
// most a quarter of what the process may use (Options.hostUsable), so
// that the appraisal fits a small host or a memory cgroup instead of
// meeting the OOM killer; never under softwareMemoryFloor.
const (
	softwareMemoryLimit = 1 << 30
	softwareMemoryFloor = 64 << 20
)

// Options configure a run.
type Options struct {
	// Quick takes fewer samples over smaller sizes.
	Quick bool
	// CoopMat also measures matrix-engine GEMMs through
	// VK_KHR_cooperative_matrix, for every shape the driver offers.
	CoopMat bool
	// BLAS configures the vendor-library GEMM probe (cuda-cublaslt): which
	// precisions, where the library is found.
	BLAS BLASOptions
	// CrossCheck, when set, runs BabelStream and mixbench on each device
	// where they are found and start, and records their figures beside
	// ours; where they are not, the card says why (or, with
	// CrossCheck.Required, the run fails before probing).
	CrossCheck *crosscheck.Config
	// AmbientC is an operator-supplied ambient temperature in °C; an inlet
	// sensor on the host, when there is one, takes precedence.
	AmbientC *float64
	// ambientSource says where AmbientC came from, set by Appraise.
	ambientSource string
	// hostUsable is the memory the process may use (host.ReadMemory),
	// read once by Appraise; 0 when unknown.
	hostUsable uint64
	// SysfsRoot is the root that sysfs, procfs and DMI are read below ("" =
	// the running system), as for Discover; tests point it at a fake tree.
	SysfsRoot string
	// AllowShared lets a device another process is using be appraised and
	// signed, its card recording who else ran (environment.shared_use).
	// Without it such a device fails the run with ErrDeviceBusy, before
	// probing or at the stage where the other user appeared.
	AllowShared bool
	// Version is the probe-suite version recorded in every report.
	Version string
	// Soak is how long the thermal soak runs; nil means DefaultSoak
	// (QuickSoak with Quick), 0 means no soak.
	Soak *time.Duration
	// SoakLoad is what the soak holds: SoakLoadAuto (also ""),
	// SoakLoadGEMM or SoakLoadFMA.
	SoakLoad string
	// Progress, when set, is told each stage as it starts.
	Progress func(device, stage string)
	// Steps, when set, is told how far a long probe has come: done of
	// total (bytes tested by the memtest, seconds of the soak).
	Steps func(device, stage string, done, total float64)
	// Now returns the current time; nil means time.Now.
	Now func() time.Time
	// Serial appraises the devices one after another, the others idle,
	// instead of all at once (ScheduleConcurrent).
	Serial bool
	// fault, when set (by tests), is asked before each WebGPU probe runs
	// on a device; an error it returns fails that probe.
	fault func(device, probe string) error
}

// Run is the outcome of appraising a set of devices: a box payload and one
// card payload per device. Cards name their box only once signed.
type Run struct {
	Box   schema.BoxPayload
	Cards []schema.CardPayload
}

// appraise is Appraise's run, without the watch for other users: it
// plans (planRun), measures the host baseline, runs every device's plan
// and then what needs every device at once.
func appraise(ctx context.Context, inst *gpu.Instance, devs []Candidate, all []Candidate, o Options) (*Run, error) {
	now := o.now()
	start := now().UTC().Truncate(time.Second)
	o.ambientSource = "operator"
	if c, _, ok := host.Ambient(o.SysfsRoot); ok {
		o.AmbientC, o.ambientSource = &c, "sensor"
	}
	rp, err := planRun(ctx, devs, o)
	if err != nil {
		return nil, err
	}
	box, err := boxPayload(devs, all, o, start)
	if err != nil {
		return nil, err
	}
	newWorker("host", o).stage("cpu-baseline")
	if err := hostBaseline(ctx, cpu.Probe{Options: rp.cpu}, &box); err != nil {
		return nil, err
	}
	run := &Run{Box: box}
	lib, libErr := nvml.Open()
	if libErr == nil {
		defer lib.Close()
	}
	outs := appraiseAll(ctx, devs, rp.devices, o, func(ctx context.Context, c Candidate, p DevicePlan, w *worker) (*schema.CapabilityVector, error) {
		v := baseVector(c, o)
		if err := appraiseDevice(ctx, inst, c, p, w, lib, v); err != nil {
			return nil, err
		}
		return v, p.xc.run(ctx, c, all, v)
	})
	kept, disagree, failed := sortOutcomes(devs, outs, &run.Box)
	if err := ctx.Err(); err != nil || len(kept) == 0 {
		return nil, errors.Join(append([]error{err}, failed...)...)
	}
	vs := make([]*schema.CapabilityVector, len(kept))
	okDevs := make([]Candidate, len(kept))
	okPlans := make([]DevicePlan, len(kept))
	for k, i := range kept {
		vs[k], okDevs[k], okPlans[k] = outs[i].v, devs[i], rp.devices[i]
	}
	if len(okDevs) > 1 {
		if err := together(ctx, inst, okDevs, okPlans, vs, newWorker("box", o), &run.Box); err != nil {
			return nil, err
		}
	}
	schedule := scheduleOf(o, len(devs))
	for k, i := range kept {
		c, v := devs[i], vs[k]
		v.NotMeasured = append(v.NotMeasured, vendorIdentity(lib, libErr, c, v, o.SysfsRoot)...)
		if len(okDevs) == 1 && v.Interconnect != nil {
			v.NotMeasured = append(v.NotMeasured, peersAlone(len(devs)))
		}
		rest, err := notYetMeasured(c, rp.devices[i], v)
		if err != nil {
			return nil, fmt.Errorf("%s (%s): %w", c.Addr, c.Adapter.DisplayName(), err)
		}
		v.NotMeasured = append(v.NotMeasured, rest...)
		v.Environment.RunDurationS = outs[i].took.Seconds()
		v.Environment.Schedule = schedule
		card := schema.CardPayload{ReportVersion: schema.ReportVersion, ProbedAt: start.Format(time.RFC3339), Capability: *v}
		run.Cards = append(run.Cards, card)
	}
	if len(failed) > 0 {
		disagree = append(disagree, fmt.Errorf("%w: %w", ErrDeviceFailed, errors.Join(failed...)))
	}
	return run, errors.Join(disagree...)
}

// now is o.Now, else time.Now.
func (o Options) now() func() time.Time {
	if o.Now == nil {
		return time.Now
	}
	return o.Now
}

// appraiseDevice runs p, c's plan, as worker w into v: the WebGPU
// probes, the raw-Vulkan probes, the vendor-BLAS GEMMs and the soak, each
// with the settings the plan resolved for it, then the settle pass.
func appraiseDevice(ctx context.Context, inst *gpu.Instance, c Candidate, p DevicePlan, w *worker, lib *nvml.Lib, v *schema.CapabilityVector) error {
	r := newDeviceRun(inst, c, p, w, lib, v)
	defer r.release()
	for _, step := range []func(context.Context) error{r.webgpuProbes, r.vulkanProbes, r.blasProbe, r.soakAfterBLAS} {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := step(ctx); err != nil {
			return err
		}
	}
	return r.settle(ctx)
}

// webgpuProbes opens the adapter through WebGPU and runs the portable
// probes in turn: the memtest over the usable memory the capacity probe
// measured, then the FMA soak when the plan soaks the FMA (started with
// the other devices' soaks in a concurrent run). The device is released
// before the raw-Vulkan probes run.
func (r *deviceRun) webgpuProbes(ctx context.Context) error {
	c, p, w, v := r.c, r.p, r.w, r.v
	opts := p.gpu
	opts.Progress = w.lines("")
	d, err := gpu.Open(r.inst, c.Adapter, opts)
	if err != nil {
		return err
	}
	defer d.Release()
	if err := runProbes(ctx, w, d, firstProbes(p), v); err != nil {
		return err
	}
	held := &gpu.HeldMemory{} // the capacity probe's chunks, for the memtest
	defer held.Release()
	capacity, err := runProbe(ctx, w, d, capacityProbe(c, held), v)
	if err != nil {
		return err
	}
	memtest, err := memtestProbe(p.memtestCap, w.stepsOf(), capacity, held)
	if err != nil {
		return fmt.Errorf("%w: %s: %w", ErrProbe, memtest.Name(), err)
	}
	if _, err := runProbe(ctx, w, d, memtest, v); err != nil {
		return err
	}
	if p.SoakLoad != SoakLoadFMA {
		return nil
	}
	if err := w.soakTogether(ctx); err != nil {
		return err
	}
	fma := fmaSoakProbe(c, p, w.stepsOf(), r.lib)
	r.fma = &fma
	_, err = runProbe(ctx, w, d, fma, v)
	return err
}

// memoryLimit is the most a probe may allocate on c's device: on a
// software adapter (its memory is the host's) 1 GiB or a quarter of
// hostUsable, the memory the process may use (0: unknown), whichever is
// less, in whole 64 MiB; else the driver's budget for the device-local
// heap, else that heap's size, else the gpu package's default.
func memoryLimit(c Candidate, hostUsable uint64) uint64 {
	switch vk := c.Vulkan; {
	case c.Adapter.Software && hostUsable > 0:
		return max(softwareMemoryFloor, min(softwareMemoryLimit, hostUsable/4)/softwareMemoryFloor*softwareMemoryFloor)
	case c.Adapter.Software:
		return softwareMemoryLimit
	case vk != nil && vk.DeviceLocalBudgetBytes > 0:
		return vk.DeviceLocalBudgetBytes
	case vk != nil:
		return vk.DeviceLocalBytes
	}
	return 0
}

// baseVector fills identity and environment; probes fill the rest.
func baseVector(c Candidate, o Options) *schema.CapabilityVector {
	a := c.Adapter
	mode := "full"
	if o.Quick {
		mode = "quick"
	}
	v := &schema.CapabilityVector{
		Identity: schema.DeviceIdentity{
			VendorID:    fmt.Sprintf("%04x", a.VendorID),
			DeviceID:    fmt.Sprintf("%04x", a.DeviceID),
			Name:        a.DisplayName(),
			AdapterType: a.Type,
			Software:    a.Software,
		},
		Environment: schema.ProbeEnvironment{
			Backend:           a.Backend,
			AmbientC:          o.AmbientC,
			ProbeSuiteVersion: o.Version,
			Mode:              mode,
			OS:                runtime.GOOS,
			Arch:              runtime.GOARCH,
		},
	}
	if o.AmbientC != nil {
		v.Environment.AmbientSource = o.ambientSource
	}
	v.Environment.DriverVersion = driverVersion(c)
	if d := c.PCI; d != nil {
		v.Identity.VendorID = fmt.Sprintf("%04x", d.VendorID)
		v.Identity.DeviceID = fmt.Sprintf("%04x", d.DeviceID)
		if d.SubsystemVendorID != 0 || d.SubsystemDeviceID != 0 {
			v.Identity.SubsystemVendorID = fmt.Sprintf("%04x", d.SubsystemVendorID)
			v.Identity.SubsystemDeviceID = fmt.Sprintf("%04x", d.SubsystemDeviceID)
		}
	}
	if vk := c.Vulkan; vk != nil {
		v.Identity.BusAddress = c.BusAddress
		if vk.DeviceLocalBytes > 0 {
			v.Memory = &schema.Memory{PhysicalBytes: &vk.DeviceLocalBytes}
		}
	}
	return v
}

// driverVersion prefers the driver's own version string from Vulkan
// (e.g. "580.159.04"), then WebGPU's driver description.
func driverVersion(c Candidate) string {
	switch {
	case c.Vulkan != nil && c.Vulkan.DriverInfo != "":
		return c.Vulkan.DriverInfo
	case c.Adapter.DriverDescription != "":
		return c.Adapter.DriverDescription
	}
	return "unknown"
}

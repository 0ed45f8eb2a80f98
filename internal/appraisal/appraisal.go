// Package appraisal probes the selected devices and turns the run into
// signed card and box reports: Discover, Plan, Appraise, Run.Sign, WriteAll.
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

// A software adapter's memory limit (memoryLimit), its memory being the host's.
const (
	softwareMemoryLimit = 1 << 30
	softwareMemoryFloor = 64 << 20
)

// Options configure a run.
type Options struct {
	// Quick takes fewer samples over smaller sizes (the plan resolves it).
	Quick bool
	// CoopMat also measures VK_KHR_cooperative_matrix GEMMs.
	CoopMat bool
	// BLAS configures the vendor-library GEMM probe.
	BLAS BLASOptions
	// CrossCheck, when set, runs BabelStream and mixbench beside our probes.
	CrossCheck *crosscheck.Config
	// AmbientC is the operator's ambient in °C; an inlet sensor wins.
	AmbientC *float64
	// ambientSource says where AmbientC came from.
	ambientSource string
	// hostUsable is the memory the process may use; 0 when unknown.
	hostUsable uint64
	// SysfsRoot is where sysfs, procfs and DMI are read below ("": /).
	SysfsRoot string
	// AllowShared signs a device another process uses, recording who.
	AllowShared bool
	// Version is the probe-suite version recorded in every report.
	Version string
	// Soak is the soak's length; nil: the mode's default; 0: none.
	Soak *time.Duration
	// SoakLoad is SoakLoadAuto (also ""), SoakLoadGEMM or SoakLoadFMA.
	SoakLoad string
	// Progress, when set, is told each stage as it starts.
	Progress func(device, stage string)
	// Steps, when set, is told how far a long probe has come.
	Steps func(device, stage string, done, total float64)
	// Now returns the current time; nil means time.Now.
	Now func() time.Time
	// Serial appraises the devices one after another (ScheduleSerial).
	Serial bool
	// fault, set by tests, fails a WebGPU probe when it returns an error.
	fault func(device, probe string) error
}

// Run is a box payload and one card payload per device.
type Run struct {
	Box   schema.BoxPayload
	Cards []schema.CardPayload
}

// appraise is Appraise without the watch for other users.
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

// appraiseDevice runs p, c's plan, as worker w into v.
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

// webgpuProbes runs the WebGPU probes, then releases the device.
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

// memoryLimit is the most a probe may allocate on c's device: on a software
// adapter 1 GiB or hostUsable/4 if less; else the device-local heap's budget.
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

// driverVersion is Vulkan's driver string, else WebGPU's description.
func driverVersion(c Candidate) string {
	switch {
	case c.Vulkan != nil && c.Vulkan.DriverInfo != "":
		return c.Vulkan.DriverInfo
	case c.Adapter.DriverDescription != "":
		return c.Adapter.DriverDescription
	}
	return "unknown"
}

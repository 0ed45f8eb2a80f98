package appraisal

import (
	"context"
	"os"
	"slices"
	"sync"

	"github.com/everycycle/appraise/gpu"
	"github.com/everycycle/appraise/internal/platform/nvml"
	"github.com/everycycle/appraise/internal/platform/occupancy"
	"github.com/everycycle/appraise/schema"
)

// ErrDeviceBusy is wrapped when another process was using a device the
// run must have to itself, before probing or (without
// Options.AllowShared) at any stage of the run: nothing is signed. The
// error is an *occupancy.BusyError per device, naming the processes.
var ErrDeviceBusy = occupancy.ErrBusy

// Reasons a device is not watched for other users.
const (
	reasonSharedSoftware = "a software adapter runs on the host's CPU, which it shares with every other process by nature: not checked"
	reasonSharedNoBus    = "the device's PCI address is unknown, so neither NVML nor the kernel's statistics can name it"
)

// Appraise runs every probe on each device in devs: all at once, one
// worker per device (the host link and launch measured one device at a
// time, the soak held by every device together), or with o.Serial one
// device after another, the others idle. A device whose probe or check
// fails has no card: the others' cards are made, the box lists it
// (failed_devices), and the run is returned with an error wrapping
// ErrDeviceFailed; when every device failed, nothing is returned but the
// error. An interrupted run returns nothing. When a cross-check
// disagrees, the run is returned with an error wrapping
// crosscheck.ErrDisagree: it can be written as a draft, never signed.
//
// Each device must be the run's alone: it is looked at for other users
// before anything is probed and at every stage (occupancy.Watch); one in
// use fails the run with ErrDeviceBusy unless o.AllowShared, and each
// card records what was looked at and found (environment.shared_use).
func Appraise(ctx context.Context, inst *gpu.Instance, devs []Candidate, all []Candidate, o Options) (*Run, error) {
	w, closeWatch := watchDevices(devs, o)
	defer closeWatch()
	return watched(ctx, w, o, func(ctx context.Context, o Options) (*Run, error) {
		return appraise(ctx, inst, devs, all, o)
	})
}

// watcher is what a run needs of an occupancy.Watch.
type watcher interface {
	Start() error
	Stage(addr, stage string) error
	Step(addr, stage string) error
	Final() error
	Record(addr string) schema.SharedUse
}

// watched runs run under w: w looks before it starts, at each of its
// stages and steps, and as it ends. The first busy device cancels the
// run's context and is its error, whatever the run returned. The cards of
// a run that ends get w's records, the i-th card's device the box's i-th
// driver binding's.
func watched(ctx context.Context, w watcher, o Options, run func(context.Context, Options) (*Run, error)) (*Run, error) {
	if err := w.Start(); err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	var mu sync.Mutex
	var busy error
	fail := func(err error) {
		mu.Lock()
		defer mu.Unlock()
		if err != nil && busy == nil {
			busy = err
			cancel(err)
		}
	}
	progress, steps := o.Progress, o.Steps
	o.Progress = func(device, stage string) {
		fail(w.Stage(device, stage))
		if progress != nil {
			progress(device, stage)
		}
	}
	o.Steps = func(device, stage string, done, total float64) {
		fail(w.Step(device, stage))
		if steps != nil {
			steps(device, stage, done, total)
		}
	}
	r, err := run(ctx, o)
	if r != nil {
		fail(w.Final())
	}
	mu.Lock()
	defer mu.Unlock()
	if busy != nil {
		return nil, busy
	}
	if r == nil {
		return nil, err
	}
	for i := range r.Cards {
		su := w.Record(r.Box.DriverVersions[i].BusAddress)
		r.Cards[i].Capability.Environment.SharedUse = &su
		usableByOthers(&r.Cards[i].Capability)
	}
	return r, err
}

// usableByOthers gives v's usable memory the reason usableLimitedBy
// reads from its physical and usable bytes and the device memory the
// processes of its shared_use held.
func usableByOthers(v *schema.CapabilityVector) {
	m, su := v.Memory, v.Environment.SharedUse
	if m == nil || m.UsableBytes == nil || m.PhysicalBytes == nil || su == nil {
		return
	}
	var others uint64
	for _, p := range su.Processes {
		if p.UsedMemoryBytes != nil {
			others += *p.UsedMemoryBytes
		}
	}
	m.UsableLimitedBy = usableLimitedBy(m.UsableLimitedBy, *m.PhysicalBytes, *m.UsableBytes, others)
}

// usableLimitedBy is schema.UsableOtherProcesses when the capacity probe
// stopped for the device, its driver or its budget (why) and the memory
// other processes held (others) is at least half of what the usable
// memory fell short of the physical by; else why.
func usableLimitedBy(why string, physical, usable, others uint64) string {
	switch why {
	case "driver-refused", "slow-memory", "budget":
	default:
		return why
	}
	if others == 0 || usable >= physical || 2*others < physical-usable {
		return why
	}
	return schema.UsableOtherProcesses
}

// watchDevices is the watch over devs, reading below o.SysfsRoot, with
// NVML opened for it when an NVIDIA card is among them; call the func it
// returns when the run is over.
func watchDevices(devs []Candidate, o Options) (*occupancy.Watch, func()) {
	var lib *nvml.Lib
	var libErr error
	if slices.ContainsFunc(devs, isNVIDIA) {
		lib, libErr = nvml.Open()
	}
	targets := make([]occupancy.Target, len(devs))
	for i, c := range devs {
		targets[i] = sharedTarget(c, lib, libErr)
	}
	env := occupancy.Env{Root: o.SysfsRoot, Self: os.Getpid(), Now: o.Now}
	return occupancy.New(env, targets, o.AllowShared), func() {
		if lib != nil {
			_ = lib.Close() // only shuts NVML down; the run's result stands
		}
	}
}

// isNVIDIA reports whether c is an NVIDIA GPU, whose users NVML lists.
func isNVIDIA(c Candidate) bool {
	return !c.Adapter.Software && c.BusAddress != "" && c.Adapter.VendorID == 0x10de
}

// sharedTarget is c as the watch sees it: software adapters and devices
// without a bus address are not looked at; an NVIDIA card is read through
// NVML where it can be.
func sharedTarget(c Candidate, lib *nvml.Lib, libErr error) occupancy.Target {
	t := occupancy.Target{Addr: c.Addr, BDF: c.BusAddress}
	switch {
	case c.Adapter.Software:
		t.Skip = reasonSharedSoftware
	case c.BusAddress == "":
		t.Skip = reasonSharedNoBus
	case !isNVIDIA(c):
	case libErr != nil:
		t.NoVendor = "NVML: " + libErr.Error()
	default:
		d, err := lib.DeviceByBusID(c.BusAddress)
		if err != nil {
			t.NoVendor = "NVML: " + err.Error()
			break
		}
		t.Vendor = d
	}
	return t
}

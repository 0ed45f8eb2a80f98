package gpu

import (
	"errors"
	"os"
	"testing"

	"github.com/everycycle/appraise/schema"
)

// quickEffort is what internal/appraisal's plan gives a GPU under --quick.
var quickEffort = Effort{
	ALU:                  Sampling{BudgetS: 0.25, MinSamples: 3, MaxSamples: 5},
	Bandwidth:            Sampling{BudgetS: 0.25, MinSamples: 3, MaxSamples: 5},
	Roofline:             Sampling{BudgetS: 0.1, MaxSamples: 5},
	BandwidthTrialRounds: 2, RooflineThin: 1, RooflineMinArrayBytes: 4 << 20,
}

// quickEffortOn is what the plan gives adapter a under --quick.
func quickEffortOn(a AdapterInfo) Effort {
	e := quickEffort
	if a.Software {
		e.RooflineThin, e.BandwidthMaxArrayBytes = 2, minArrayBytes
	}
	return e
}

// newDevice opens the first adapter, software ones included, as --quick
// does and releases it when the test ends. It skips only when there is no
// adapter at all, and fails instead when CI=true.
func newDevice(t *testing.T) *Device {
	t.Helper()
	return newDeviceOpts(t, Options{})
}

// newDeviceOpts is newDevice with explicit options; their Effort is
// always --quick's for the adapter.
func newDeviceOpts(t *testing.T, opts Options) *Device {
	t.Helper()
	inst, err := NewInstance()
	if err != nil {
		t.Fatalf("NewInstance: %v", err)
	}
	t.Cleanup(inst.Release)
	adapters, err := inst.Adapters()
	if errors.Is(err, ErrNoAdapter) {
		if os.Getenv("CI") == "true" {
			t.Fatalf("no WebGPU adapter, and CI=true requires one (install mesa-vulkan-drivers)")
		}
		t.Skip("no WebGPU adapter")
	}
	if err != nil {
		t.Fatalf("Adapters: %v", err)
	}
	opts.Effort = quickEffortOn(adapters[0])
	d, err := Open(inst, adapters[0], opts)
	if err != nil {
		t.Fatalf("Open %q: %v", adapters[0].DisplayName(), err)
	}
	t.Cleanup(d.Release)
	t.Logf("device %q (%s, %s, software %t); timing %s: %s", adapters[0].DisplayName(),
		adapters[0].Type, adapters[0].Backend, adapters[0].Software, d.Timing(), d.TimingNote())
	return d
}

func TestOpenAndReleaseTwice(t *testing.T) {
	d := newDevice(t)
	if d.MemoryLimit() == 0 {
		t.Error("MemoryLimit is zero")
	}
	l := d.Limits()
	if l.MaxBufferBytes == 0 || l.MaxStorageBindingBytes == 0 || l.MaxWorkgroupsPerDimension == 0 {
		t.Errorf("limits not read back: %+v", l)
	}
	if d.Info().Software && d.MemoryLimit() > softwareMemoryLimit {
		t.Errorf("software adapter with memory limit %d", d.MemoryLimit())
	}
	d.Release()
	d.Release()
	if err := d.alive(); err == nil {
		t.Error("released device still reports alive")
	}
	if _, err := d.emptyRoundTripS(t.Context(), 2); err == nil {
		t.Error("emptyRoundTripS on a released device did not fail")
	}
}

// Info describes the adapter the device was opened on.
func (d *Device) Info() AdapterInfo { return d.info }

// Features lists the optional features the device has.
func (d *Device) Features() Features { return d.features }

// Limits returns the device limits the probes size their work by.
func (d *Device) Limits() Limits { return d.limits }

// Timing says how kernels on this device are timed.
func (d *Device) Timing() schema.TimingMethod { return d.timing }

// TimingNote says why Timing is what it is, in a sentence.
func (d *Device) TimingNote() string { return d.timingNote }

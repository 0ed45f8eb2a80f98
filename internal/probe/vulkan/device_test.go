package vulkan

import (
	"context"
	"errors"
	"os"
	"testing"
	"time"
)

// newDevice opens the first Vulkan device. It skips only when no Vulkan
// device exists at all, and fails instead when CI=true.
func newDevice(t *testing.T) *Device {
	t.Helper()
	d, err := Open(0)
	if errors.Is(err, ErrNoVulkan) {
		if os.Getenv("CI") == "true" {
			t.Fatalf("no Vulkan device in CI (install libvulkan1 mesa-vulkan-drivers): %v", err)
		}
		t.Skipf("no Vulkan device: %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(d.Release)
	return d
}

// smallOptions keeps lavapipe runs short while honouring the minimums.
func smallOptions() Options {
	return Options{
		Timing: Timing{Samples: MinSamples, SampleTime: 5 * time.Millisecond},
		Size:   64, Seed: 1, FMAInvocations: 1024, FMASteps: 64,
	}
}

func TestDeviceInfo(t *testing.T) {
	d := newDevice(t)
	i := d.Info
	t.Logf("%s vendor=%#x device=%#x type=%s api=%s driver=%s %q subgroup=%d ts=%gns/%dbits local=%d budget=%d pci=%v",
		i.Name, i.VendorID, i.DeviceID, i.Type, i.APIVersion, i.DriverName, i.DriverInfo, i.SubgroupSize,
		i.TimestampPeriodNs, i.TimestampValidBits, i.DeviceLocalBytes, i.DeviceLocalBudgetBytes, i.PCI)
	if i.Name == "" || i.SubgroupSize == 0 || i.DeviceLocalBytes == 0 || len(i.Extensions) == 0 {
		t.Errorf("incomplete device info: %+v", i)
	}
	d.Release()
	d.Release() // safe twice
}

func TestDevicesLists(t *testing.T) {
	newDevice(t)
	infos, err := Devices()
	if err != nil {
		t.Fatal(err)
	}
	if len(infos) == 0 {
		t.Fatal("Devices returned none while Open(0) worked")
	}
}

func TestBufferRoundTrip(t *testing.T) {
	d := newDevice(t)
	b, err := d.NewBuffer(4096, false)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Release()
	in := make([]byte, 4096)
	for i := range in {
		in[i] = byte(i * 7)
	}
	if err := d.Upload(b, in); err != nil {
		t.Fatal(err)
	}
	out, err := d.Download(b, 4096)
	if err != nil {
		t.Fatal(err)
	}
	if string(out) != string(in) {
		t.Fatal("download differs from upload")
	}
	b.Release()
	b.Release()
}

func TestFMA64(t *testing.T) {
	d := newDevice(t)
	if !d.enabled.Float64 {
		t.Skipf("%s has no shaderFloat64", d.Info.Name)
	}
	r, err := RunFMA64(context.Background(), d, smallOptions())
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%s %v: %.3g GFLOP/s median, %s, check %+v", r.Probe, r.Problem, r.OpsPerSecond.Median/1e9, r.Timing, r.Check)
	if r.Check.Elements != 1024 {
		t.Errorf("checked %d invocations, want 1024", r.Check.Elements)
	}
}

func TestTamperedResultsFail(t *testing.T) {
	d := newDevice(t)
	o := smallOptions()
	// Flip a high exponent bit of the element in the middle of the output.
	o.tamper = func(probe string, out []byte) {
		top := 3
		if probe == ProbeFMA64 {
			top = 7
		}
		out[len(out)/2+top] ^= 0x40
	}
	if d.enabled.Float64 {
		if _, err := RunFMA64(context.Background(), d, o); !errors.Is(err, ErrCheckFailed) {
			t.Errorf("fma with a corrupted output: err = %v, want ErrCheckFailed", err)
		}
	}
	if d.enabled.Float16 {
		if _, err := RunFMA16(context.Background(), d, o); !errors.Is(err, ErrCheckFailed) {
			t.Errorf("fp16 fma with a corrupted output: err = %v, want ErrCheckFailed", err)
		}
	}
	if d.enabled.IntDot {
		if _, err := RunDot4(context.Background(), d, o, true); !errors.Is(err, ErrCheckFailed) {
			t.Errorf("dot4 with a corrupted output: err = %v, want ErrCheckFailed", err)
		}
	}
}

func TestShapesWithoutExtension(t *testing.T) {
	d := newDevice(t)
	if d.Info.HasExtension(extCoopMat) {
		shapes, err := d.Shapes()
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range shapes {
			t.Log(s)
		}
		return
	}
	if _, err := d.Shapes(); !errors.Is(err, ErrExtensionMissing) {
		t.Fatalf("Shapes on a device without %s: err = %v, want ErrExtensionMissing", extCoopMat, err)
	}
}

func TestDeviceGroups(t *testing.T) {
	infos, err := Devices()
	if err != nil {
		t.Skipf("no Vulkan: %v", err)
	}
	groups, err := DeviceGroups()
	if err != nil {
		t.Fatal(err)
	}
	// Every device is in exactly one group.
	seen := map[int]int{}
	for _, g := range groups {
		if len(g) == 0 {
			t.Errorf("empty group in %v", groups)
		}
		for _, i := range g {
			seen[i]++
		}
	}
	for i := range infos {
		if seen[i] != 1 {
			t.Errorf("device %d is in %d groups: %v", i, seen[i], groups)
		}
	}
	if SharedGroup(groups, 0, len(infos)) {
		t.Error("a group holds a device that does not exist")
	}
	if !SharedGroup([][]int{{0}, {1, 2}}, 2, 1) || SharedGroup([][]int{{0}, {1}}, 0, 1) {
		t.Error("SharedGroup")
	}
}

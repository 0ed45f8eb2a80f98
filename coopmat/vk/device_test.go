package vk

import (
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

func TestShapesWithoutExtension(t *testing.T) {
	d := newDevice(t)
	if d.Info.HasExtension(ExtCoopMat) {
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
		t.Fatalf("Shapes on a device without %s: err = %v, want ErrExtensionMissing", ExtCoopMat, err)
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

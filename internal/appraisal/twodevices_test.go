package appraisal

import (
	"os"
	"testing"

	"github.com/everycycle/appraise/gpu"
)

// requireTwoDevices returns a WebGPU instance and the two devices an
// appraisal with --software would appraise, as Discover classifies them,
// when the test runs under scripts/with-two-devices (go test -exec
// $PWD/scripts/with-two-devices ./internal/appraisal/), which sets
// APPRAISE_TWO_DEVICES=1; without it the test skips. Under it, anything
// but two included devices, each tied to its own raw-Vulkan device, fails
// the test: the script promised two real devices.
func requireTwoDevices(t *testing.T) (*gpu.Instance, []Candidate) {
	t.Helper()
	if os.Getenv("APPRAISE_TWO_DEVICES") != "1" {
		t.Skip("needs two devices: go test -exec $PWD/scripts/with-two-devices")
	}
	inst, err := gpu.NewInstance()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(inst.Release)
	cands, _, err := Discover(inst, true, "")
	if err != nil {
		t.Fatal(err)
	}
	devs, err := Select(cands, "")
	if err != nil {
		t.Fatalf("APPRAISE_TWO_DEVICES=1: %v (candidates %+v)", err, cands)
	}
	if len(devs) != 2 {
		t.Fatalf("APPRAISE_TWO_DEVICES=1 but %d devices are included: %+v", len(devs), devs)
	}
	for _, c := range devs {
		if c.Vulkan == nil {
			t.Fatalf("APPRAISE_TWO_DEVICES=1 but %s (%s) is tied to no raw-Vulkan device: %s", c.Addr, c.Adapter.DisplayName(), c.vulkanWhy)
		}
	}
	return inst, devs
}

// TestTwoDevicesDiscovered: under scripts/with-two-devices, discovery
// gives the two software devices addresses, names and raw-Vulkan devices
// of their own, so their cards' files, the box's lists and the raw-Vulkan
// probes never mix them up.
func TestTwoDevicesDiscovered(t *testing.T) {
	_, devs := requireTwoDevices(t)
	a, b := devs[0], devs[1]
	if a.Addr == b.Addr {
		t.Errorf("both devices have address %s", a.Addr)
	}
	if a.Adapter.DisplayName() == b.Adapter.DisplayName() {
		t.Errorf("both devices are named %q", a.Adapter.DisplayName())
	}
	if a.Vulkan.Index == b.Vulkan.Index {
		t.Errorf("both devices are tied to raw-Vulkan device %d", a.Vulkan.Index)
	}
	for _, c := range devs {
		t.Logf("%s: %s, raw-Vulkan device %d (%s %s)", c.Addr, c.Adapter.DisplayName(), c.Vulkan.Index, c.Vulkan.DriverName, c.Vulkan.DriverInfo)
	}
}

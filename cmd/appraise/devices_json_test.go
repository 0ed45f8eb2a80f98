package main

import (
	"encoding/json"
	"regexp"
	"testing"

	"github.com/everycycle/appraise/gpu"
	"github.com/everycycle/appraise/internal/appraisal"
	"github.com/everycycle/appraise/internal/platform/pci"
)

var snakeCase = regexp.MustCompile(`^[a-z][a-z0-9]*(_[a-z0-9]+)*$`)

// TestDevicesJSONNames checks every member name `devices --json` can print,
// with every optional field set, against snake_case, and the adapter's
// name fallback and hex ids.
func TestDevicesJSONNames(t *testing.T) {
	dev := pci.Device{
		Class: 0x030200, VendorID: 0x10de, DeviceID: 0x2335, SubsystemVendorID: 0x10de, SubsystemDeviceID: 0x18be,
		Driver: "nvidia", HasROM: true, NUMANode: 1, VRAMTotalBytes: 1 << 30,
		BARs:        []pci.BAR{{Index: 0, Start: 0xf0000000, End: 0xf0ffffff, Flags: pci.FlagMem, SizeBytes: 1 << 24}},
		CurrentLink: pci.Link{Speed: "32.0 GT/s PCIe", Width: 16}, MaxLink: pci.Link{Speed: "32.0 GT/s PCIe", Width: 16},
	}
	cands := []appraisal.Candidate{
		{Addr: "0000:19:00.0", BusAddress: "0000:19:00.0", Included: true, Reason: "discrete GPU", PCI: &dev,
			Adapter: gpu.AdapterInfo{Index: 0, Name: "0x0", DriverDescription: "NVIDIA H200", Architecture: "hopper",
				VendorID: 0x10de, DeviceID: 0x2335, Type: "discrete-gpu", Backend: "vulkan"}},
		{Addr: "0000:03:00.0", BusAddress: "0000:03:00.0", Reason: "BMC", PCI: &dev, Adapter: gpu.AdapterInfo{Index: -1}},
	}
	b, err := json.Marshal(devicesJSON(cands))
	if err != nil {
		t.Fatal(err)
	}
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatal(err)
	}
	var walk func(any)
	walk = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			for k, x := range v {
				if !snakeCase.MatchString(k) {
					t.Errorf("member %q is not snake_case", k)
				}
				walk(x)
			}
		case []any:
			for _, x := range v {
				walk(x)
			}
		}
	}
	walk(v)
	got := devicesJSON(cands)
	if a := got[0].Adapter; a.Name != "NVIDIA H200" || a.VendorID != "10de" || a.DeviceID != "2335" {
		t.Errorf("adapter = %+v, want the driver's description for a bare 0x0 name and hex ids", *a)
	}
	if got[1].Adapter != nil {
		t.Errorf("a PCI-only device got an adapter: %+v", *got[1].Adapter)
	}
	if p := got[0].PCI; p.Class != "030200" || p.BARs[0].AddressBits != 32 || *p.NUMANode != 1 || p.CurrentLink.Lanes != 16 {
		t.Errorf("pci = %+v", *p)
	}
}

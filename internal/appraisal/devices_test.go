package appraisal

import (
	"strings"
	"testing"

	"github.com/everycycle/appraise/coopmat/vk"
	"github.com/everycycle/appraise/gpu"
	"github.com/everycycle/appraise/internal/platform/pci"
)

func bdf(t *testing.T, s string) pci.BDF {
	t.Helper()
	b, err := pci.ParseBDF(s)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func pciDev(t *testing.T, addr string, class uint32, vendor, device uint16, barBytes uint64, driver string) pci.Device {
	return pci.Device{BDF: bdf(t, addr), Class: class, VendorID: vendor, DeviceID: device, SubsystemVendorID: vendor, SubsystemDeviceID: 0x18bf,
		Driver: driver, NUMANode: -1,
		BARs: []pci.BAR{{Index: 1, Start: 1 << 40, End: 1<<40 + barBytes - 1, Flags: pci.FlagMem | pci.FlagPrefetch | pci.FlagMem64, SizeBytes: barBytes}}}
}

func vkDev(index int, name string, vendor, device uint32, bus *vk.PCIBusInfo) vk.DeviceInfo {
	return vk.DeviceInfo{Index: index, Name: name, VendorID: vendor, DeviceID: device, Type: "discrete-gpu", PCI: bus}
}

func adapter(index int, name string, vendor, device uint32) gpu.AdapterInfo {
	return gpu.AdapterInfo{Index: index, Name: name, VendorID: vendor, DeviceID: device, Type: "discrete-gpu", Backend: "vulkan"}
}

// TestCandidatesAstra is the seed's first host: an RTX 5070 Ti at
// 0000:01:00.0 and the BMC's ASPEED display chip at 0003:02:00.0.
func TestCandidatesAstra(t *testing.T) {
	inv := Inventory{
		Adapters: []gpu.AdapterInfo{adapter(0, "NVIDIA GeForce RTX 5070 Ti", 0x10de, 0x2c05)},
		Vulkan:   []vk.DeviceInfo{vkDev(0, "NVIDIA GeForce RTX 5070 Ti", 0x10de, 0x2c05, &vk.PCIBusInfo{Bus: 1})},
		PCI: []pci.Device{
			pciDev(t, "0000:01:00.0", 0x030000, 0x10de, 0x2c05, 16<<30, "nvidia"),
			pciDev(t, "0003:02:00.0", 0x030000, 0x1a03, 0x2000, 64<<20, "ast"),
		},
	}
	cs := Candidates(inv, false)
	if len(cs) != 2 {
		t.Fatalf("want the GPU and the BMC chip, got %+v", cs)
	}
	gpu0, bmc := cs[0], cs[1]
	if !gpu0.Included || gpu0.Addr != "0000:01:00.0" || gpu0.PCI == nil || gpu0.PCI.Driver != "nvidia" {
		t.Fatalf("GPU: %+v", gpu0)
	}
	if bmc.Included || bmc.Addr != "0003:02:00.0" || !strings.Contains(bmc.Reason, "no Vulkan adapter") {
		t.Fatalf("BMC: %+v", bmc)
	}
	sel, err := Select(cs, "")
	if err != nil || len(sel) != 1 || sel[0].Addr != "0000:01:00.0" {
		t.Fatalf("Select = %+v, %v", sel, err)
	}
	if _, err := Select(cs, "0003:02:00.0"); err == nil || !strings.Contains(err.Error(), "excluded") {
		t.Fatalf("selecting the BMC chip: %v", err)
	}
}

// TestCandidatesTwoIdenticalGPUs: with two identical cards the adapter
// cannot be tied to a bus address by its name and ids, so none is guessed.
func TestCandidatesTwoIdenticalGPUs(t *testing.T) {
	inv := Inventory{
		Adapters: []gpu.AdapterInfo{adapter(0, "NVIDIA H200", 0x10de, 0x2335), adapter(1, "NVIDIA H200", 0x10de, 0x2335)},
		Vulkan: []vk.DeviceInfo{
			vkDev(0, "NVIDIA H200", 0x10de, 0x2335, &vk.PCIBusInfo{Device: 6}),
			vkDev(1, "NVIDIA H200", 0x10de, 0x2335, &vk.PCIBusInfo{Device: 7}),
		},
		PCI: []pci.Device{
			pciDev(t, "0000:00:06.0", 0x030200, 0x10de, 0x2335, 256<<30, "nvidia"),
			pciDev(t, "0000:00:07.0", 0x030200, 0x10de, 0x2335, 256<<30, "nvidia"),
		},
	}
	cs := Candidates(inv, false)
	for _, c := range cs[:2] {
		if c.BusAddress != "" || c.Vulkan != nil || !strings.HasPrefix(c.Addr, "adapter-") || len(c.vulkanCould) != 2 {
			t.Fatalf("a bus address was guessed: %+v", c)
		}
	}
	for _, c := range cs[2:] {
		if c.Included || !strings.Contains(c.Reason, "not proven") {
			t.Fatalf("PCI-only entry: %+v", c)
		}
	}
	// A memory-usage proof that adapter 0 is Vulkan device 1 (and 1 is 0)
	// gives each its bus address, crossed, and no PCI-only leftovers.
	inv.Proven = map[int]int{0: 1, 1: 0}
	cs = Candidates(inv, false)
	if len(cs) != 2 || cs[0].Addr != "0000:00:07.0" || cs[1].Addr != "0000:00:06.0" || !cs[0].Included || !cs[1].Included {
		t.Fatalf("proven mapping: %+v", cs)
	}
}

func TestCandidatesH200AndSoftware(t *testing.T) {
	inv := Inventory{
		Adapters: []gpu.AdapterInfo{adapter(0, "NVIDIA H200", 0x10de, 0x2335),
			{Index: 1, Name: "llvmpipe (LLVM 15.0.6, 256 bits)", VendorID: 0x10005, Type: "cpu", Software: true}},
		Vulkan: []vk.DeviceInfo{vkDev(0, "NVIDIA H200", 0x10de, 0x2335, &vk.PCIBusInfo{Device: 6})},
		PCI:    []pci.Device{pciDev(t, "0000:00:06.0", 0x030200, 0x10de, 0x2335, 256<<30, "nvidia")},
	}
	cs := Candidates(inv, false)
	if !cs[0].Included || cs[0].Addr != "0000:00:06.0" || cs[1].Included || cs[1].Addr != "software-1" {
		t.Fatalf("got %+v", cs)
	}
	cs = Candidates(inv, true)
	if !cs[1].Included {
		t.Fatalf("--software did not include lavapipe: %+v", cs[1])
	}
	v := baseVector(cs[0], Options{Version: "test"})
	if v.Identity.BusAddress != "0000:00:06.0" || v.Identity.SubsystemVendorID != "10de" || v.Identity.SubsystemDeviceID != "18bf" {
		t.Fatalf("identity: %+v", v.Identity)
	}
}

package main

import (
	"fmt"

	"github.com/everycycle/appraise/gpu"
	"github.com/everycycle/appraise/internal/appraisal"
	"github.com/everycycle/appraise/internal/platform/pci"
)

// deviceJSON is one entry of `appraise devices --json`.
type deviceJSON struct {
	// Address is the name reports use: PCI address, "adapter-N" or "software-N".
	Address string `json:"address"`
	// Included says whether a run with the same options appraises it.
	Included bool `json:"included"`
	// Reason says why it is included or excluded.
	Reason string `json:"reason"`
	// BusAddress is the PCI address, when known.
	BusAddress string `json:"bus_address,omitempty"`
	// Adapter is what WebGPU reports; absent for a PCI device with no adapter.
	Adapter *adapterJSON `json:"adapter,omitempty"`
	// PCI is what sysfs says, when the device was found there.
	PCI *pciJSON `json:"pci,omitempty"`
}

// adapterJSON is a WebGPU adapter.
type adapterJSON struct {
	// Index is the adapter's position in the enumeration (--device takes it).
	Index int `json:"index"`
	// Name is the device name, or the driver's description for a bare id.
	Name string `json:"name"`
	// DriverDescription is the driver's free-text description.
	DriverDescription string `json:"driver_description,omitempty"`
	// Architecture is the driver's architecture string, when it gives one.
	Architecture string `json:"architecture,omitempty"`
	// VendorID is the vendor id in lowercase hex.
	VendorID string `json:"vendor_id"`
	// DeviceID is the device id in lowercase hex.
	DeviceID string `json:"device_id"`
	// AdapterType is "discrete-gpu", "integrated-gpu", "cpu" or "unknown".
	AdapterType string `json:"adapter_type"`
	// Backend is the WebGPU backend, e.g. "vulkan".
	Backend string `json:"backend"`
	// Software is true for an adapter that runs on the CPU.
	Software bool `json:"software"`
}

// pciJSON is one PCI function as sysfs describes it.
type pciJSON struct {
	// Class is the 24-bit class code in hex ("030200": 3D controller).
	Class string `json:"class"`
	// VendorID and DeviceID are the PCI ids in lowercase hex.
	VendorID string `json:"vendor_id"`
	DeviceID string `json:"device_id"`
	// SubsystemVendorID and SubsystemDeviceID are in lowercase hex, when known.
	SubsystemVendorID string `json:"subsystem_vendor_id,omitempty"`
	SubsystemDeviceID string `json:"subsystem_device_id,omitempty"`
	// Driver is the bound kernel driver, when one is bound.
	Driver string `json:"driver,omitempty"`
	// BARs are the assigned base address registers.
	BARs []barJSON `json:"bars"`
	// HasROM is true when sysfs exposes the expansion ROM.
	HasROM bool `json:"has_rom"`
	// NUMANode is the device's NUMA node, when the kernel knows one.
	NUMANode *int `json:"numa_node,omitempty"`
	// CurrentLink and MaxLink are the negotiated and supported PCIe link.
	CurrentLink *linkJSON `json:"current_link,omitempty"`
	MaxLink     *linkJSON `json:"max_link,omitempty"`
	// VRAMTotalBytes is amdgpu's VRAM size in bytes (other drivers: absent).
	VRAMTotalBytes uint64 `json:"vram_total_bytes,omitempty"`
}

// barJSON is one base address register.
type barJSON struct {
	// Index is the BAR number, 0-5.
	Index int `json:"index"`
	// Start is the first bus address, in lowercase hex with 0x.
	Start string `json:"start"`
	// SizeBytes is the size of the range in bytes.
	SizeBytes uint64 `json:"size_bytes"`
	// Memory is true for a memory BAR, false for I/O ports.
	Memory bool `json:"memory"`
	// Prefetchable is true for prefetchable memory.
	Prefetchable bool `json:"prefetchable"`
	// AddressBits is 64 for a 64-bit memory BAR, 32 for another memory BAR.
	AddressBits int `json:"address_bits,omitempty"`
}

// linkJSON is a PCIe link.
type linkJSON struct {
	// Speed is the kernel's text, e.g. "32.0 GT/s PCIe".
	Speed string `json:"speed,omitempty"`
	// Lanes is the link width.
	Lanes int `json:"lanes,omitempty"`
}

// devicesJSON is what `appraise devices --json` prints for cands.
func devicesJSON(cands []appraisal.Candidate) []deviceJSON {
	out := make([]deviceJSON, 0, len(cands))
	for _, c := range cands {
		d := deviceJSON{Address: c.Addr, Included: c.Included, Reason: c.Reason, BusAddress: c.BusAddress}
		if c.Adapter.Index >= 0 {
			d.Adapter = adapterView(c.Adapter)
		}
		if c.PCI != nil {
			d.PCI = pciView(*c.PCI)
		}
		out = append(out, d)
	}
	return out
}

func adapterView(a gpu.AdapterInfo) *adapterJSON {
	return &adapterJSON{
		Index: a.Index, Name: a.DisplayName(), DriverDescription: a.DriverDescription, Architecture: a.Architecture,
		VendorID: hexID(uint64(a.VendorID)), DeviceID: hexID(uint64(a.DeviceID)),
		AdapterType: a.Type, Backend: a.Backend, Software: a.Software,
	}
}

func pciView(d pci.Device) *pciJSON {
	p := &pciJSON{
		Class: fmt.Sprintf("%06x", d.Class), VendorID: hexID(uint64(d.VendorID)), DeviceID: hexID(uint64(d.DeviceID)),
		Driver: d.Driver, BARs: []barJSON{}, HasROM: d.HasROM, VRAMTotalBytes: d.VRAMTotalBytes,
		CurrentLink: linkView(d.CurrentLink), MaxLink: linkView(d.MaxLink),
	}
	if d.SubsystemVendorID != 0 || d.SubsystemDeviceID != 0 {
		p.SubsystemVendorID, p.SubsystemDeviceID = hexID(uint64(d.SubsystemVendorID)), hexID(uint64(d.SubsystemDeviceID))
	}
	if d.NUMANode >= 0 {
		p.NUMANode = &d.NUMANode
	}
	for _, b := range d.BARs {
		bar := barJSON{Index: b.Index, Start: fmt.Sprintf("%#x", b.Start), SizeBytes: b.SizeBytes,
			Memory: b.IsMemory(), Prefetchable: b.Prefetchable()}
		if bar.Memory {
			bar.AddressBits = 32
			if b.Is64Bit() {
				bar.AddressBits = 64
			}
		}
		p.BARs = append(p.BARs, bar)
	}
	return p
}

func linkView(l pci.Link) *linkJSON {
	if l == (pci.Link{}) {
		return nil
	}
	return &linkJSON{Speed: l.Speed, Lanes: l.Width}
}

// hexID writes an id as the reports do: lowercase hex, at least four digits.
func hexID(v uint64) string { return fmt.Sprintf("%04x", v) }

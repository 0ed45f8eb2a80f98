package pci

import (
	"fmt"
	"strings"
)

// PCI facts the rules below use. None of them names a product.
const (
	// baseClassDisplay is PCI base class 0x03, display controller.
	baseClassDisplay = 0x03

	vendorIntel  = 0x8086
	vendorAMDATI = 0x1002

	// maxBMCApertureBytes is the largest memory BAR a BMC or legacy
	// display chip exposes (ASPEED and Matrox G200 parts map 16-64 MiB).
	// Every discrete GPU with its own memory maps at least 256 MiB of it.
	maxBMCApertureBytes = 64 << 20

	// minIGPUExceptionBytes: an Intel display function on bus 0 whose
	// largest prefetchable BAR is smaller than this is taken as the
	// integrated GPU. iGPU graphics apertures are 256 MiB-1 GiB in
	// practice; a discrete Arc passed into a VM at bus 0 with resizable
	// BAR shows its whole VRAM (4 GiB or more).
	minIGPUExceptionBytes = 2 << 30

	// minAMDDedicatedVRAMBytes: amdgpu reports the stolen-memory carve-out
	// of an APU as VRAM, by default 512 MiB-1 GiB. A VRAM pool smaller than
	// this is taken as such a carve-out; at least this much is taken as a
	// positive sign of a discrete card.
	minAMDDedicatedVRAMBytes = 2 << 30
)

// nonComputeVendor names the few PCI vendors whose own display functions
// are never compute GPUs, a fact about the vendor and not a SKU table:
// server BMC display chips and the display adapters that hypervisors
// emulate. It matches the device's vendor id, not the subsystem vendor, so
// a board vendor's card built on another vendor's GPU is not affected.
func nonComputeVendor(vendor uint16) (string, bool) {
	switch vendor {
	case 0x1a03:
		return "ASPEED (BMC display chip)", true
	case 0x102b:
		return "Matrox (G200-class server BMC display)", true
	case 0x1234:
		return "QEMU/Bochs emulated VGA", true
	case 0x1b36:
		return "Red Hat QEMU emulated display (QXL)", true
	case 0x1af4:
		return "virtio-gpu (paravirtual display)", true
	case 0x15ad:
		return "VMware SVGA (emulated display)", true
	case 0x1013:
		return "Cirrus Logic (emulated VGA)", true
	}
	return "", false
}

// Classify gives the PCI-side verdict on whether d is a discrete compute GPU
// and a reason a person can read. The rules, in order:
//
//  1. Only display controllers (base class 0x03: 0x0300 VGA, 0x0302 3D
//     controller, 0x0380 other) are candidates.
//  2. Display functions of the vendors in nonComputeVendor are excluded:
//     the BMC display chips of ASPEED (0x1a03) and Matrox (0x102b), and the
//     adapters hypervisors emulate (QEMU/Bochs 0x1234, Red Hat QXL 0x1b36,
//     virtio-gpu 0x1af4, VMware 0x15ad, Cirrus Logic 0x1013).
//  3. An Intel display function on bus 0 (the root complex, where the
//     integrated GPU sits at 00:02.0) without a prefetchable BAR of at
//     least 2 GiB is the integrated GPU and is excluded.
//  4. An amdgpu device that reports less than 2 GiB of VRAM
//     (mem_info_vram_total) is taken as an APU's carve-out and excluded.
//  5. A device with no memory BAR, or whose largest memory BAR is at most
//     64 MiB, has no aperture onto a dedicated memory pool and is
//     excluded, unless amdgpu reports at least 2 GiB of VRAM.
//  6. Everything else is a candidate.
//
// The bound driver does not change the verdict; an unbound device or one
// held by vfio-pci is still a candidate, with a note that no graphics API
// on this host can drive it. A candidate here is not yet proven to have
// dedicated memory: the Vulkan/WebGPU memory heaps (and the device type
// they report) have the final say.
func Classify(d Device) (candidate bool, reason string) {
	if d.BaseClass() != baseClassDisplay {
		return false, fmt.Sprintf("not a display controller (class 0x%06x)", d.Class)
	}
	kind := displayKind(d.ClassCode())
	if name, ok := nonComputeVendor(d.VendorID); ok {
		return false, fmt.Sprintf("%s from vendor 0x%04x, %s: never a compute GPU", kind, d.VendorID, name)
	}
	prefetch := largestPrefetchable(d)
	if d.VendorID == vendorIntel && d.BDF.Bus == 0 && prefetch < minIGPUExceptionBytes {
		return false, fmt.Sprintf("%s from Intel on the root bus (%s) with no prefetchable BAR of 2 GiB or more: integrated GPU sharing system memory", kind, d.BDF)
	}
	amdVRAM := d.VendorID == vendorAMDATI && d.VRAMTotalBytes > 0
	if amdVRAM && d.VRAMTotalBytes < minAMDDedicatedVRAMBytes {
		return false, fmt.Sprintf("%s from AMD whose driver reports only %s of VRAM (less than 2 GiB): taken as an APU's carve-out of system memory", kind, formatBytes(d.VRAMTotalBytes))
	}
	bar, ok := d.LargestMemoryBAR()
	if !ok && !amdVRAM {
		return false, fmt.Sprintf("%s with no memory BAR assigned: no aperture onto a dedicated memory pool", kind)
	}
	if ok && bar.SizeBytes <= maxBMCApertureBytes && !amdVRAM {
		return false, fmt.Sprintf("%s whose largest memory BAR is %s (at most 64 MiB, as on BMC and legacy display chips): no dedicated memory pool", kind, formatBytes(bar.SizeBytes))
	}
	var why []string
	if ok {
		why = append(why, fmt.Sprintf("a %s %s memory BAR", formatBytes(bar.SizeBytes), barKind(bar)))
	}
	if amdVRAM {
		why = append(why, fmt.Sprintf("%s of VRAM reported by amdgpu", formatBytes(d.VRAMTotalBytes)))
	}
	reason = fmt.Sprintf("%s from vendor 0x%04x with %s; dedicated memory to be confirmed by the Vulkan memory heaps", kind, d.VendorID, strings.Join(why, " and "))
	return true, reason + driverNote(d.Driver)
}

// displayKind names a display subclass (base class and subclass).
func displayKind(code uint16) string {
	switch code {
	case 0x0300:
		return "VGA controller"
	case 0x0301:
		return "XGA controller"
	case 0x0302:
		return "3D controller"
	}
	return fmt.Sprintf("display controller (class 0x%04x)", code)
}

// largestPrefetchable returns the size of the largest prefetchable memory
// BAR, 0 when there is none.
func largestPrefetchable(d Device) uint64 {
	var n uint64
	for _, b := range d.BARs {
		if b.IsMemory() && b.Prefetchable() {
			n = max(n, b.SizeBytes)
		}
	}
	return n
}

// barKind describes a memory BAR's flags.
func barKind(b BAR) string {
	kind := "32-bit"
	if b.Is64Bit() {
		kind = "64-bit"
	}
	if b.Prefetchable() {
		return "prefetchable " + kind
	}
	return "non-prefetchable " + kind
}

// driverNote explains a driver binding that keeps graphics APIs away.
func driverNote(driver string) string {
	switch driver {
	case "":
		return "; no kernel driver bound, so no graphics API can drive it"
	case "vfio-pci", "pci-stub":
		return "; bound to " + driver + " (held for pass-through), so no graphics API on this host can drive it"
	}
	return ""
}

// formatBytes writes a size in binary units, e.g. "64 MiB" or "1.5 GiB".
func formatBytes(n uint64) string {
	units := []string{"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"}
	v, i := float64(n), 0
	for v >= 1024 && i < len(units)-1 {
		v /= 1024
		i++
	}
	if v == float64(uint64(v)) {
		return fmt.Sprintf("%d %s", uint64(v), units[i])
	}
	return fmt.Sprintf("%.1f %s", v, units[i])
}

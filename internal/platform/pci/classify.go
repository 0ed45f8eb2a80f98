package pci

import (
	"fmt"
	"strings"
)

// PCI facts the rules use. None of them names a product.
const (
	baseClassDisplay = 0x03
	vendorIntel      = 0x8086
	vendorAMDATI     = 0x1002

	maxBMCApertureBytes      = 64 << 20 // the largest memory BAR of a BMC or legacy display chip
	minIGPUExceptionBytes    = 2 << 30  // an Intel iGPU's largest prefetchable BAR is smaller
	minAMDDedicatedVRAMBytes = 2 << 30  // less VRAM under amdgpu is an APU's carve-out
)

// nonComputeVendor names the vendors whose own display functions are never
// compute GPUs: BMC display chips and emulated adapters. vendor is the
// device's vendor id, not the subsystem's.
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

// Classify gives the PCI-side verdict on whether d is a discrete compute GPU,
// with a reason a person can read. It excludes functions that are not display
// controllers, those of nonComputeVendor, an Intel iGPU (bus 0, no prefetchable
// BAR of 2 GiB), an amdgpu APU (under 2 GiB of VRAM) and a device with no
// memory BAR over 64 MiB unless amdgpu reports 2 GiB of VRAM. The bound driver
// does not change the verdict; the Vulkan memory heaps have the final say.
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

func largestPrefetchable(d Device) uint64 {
	var n uint64
	for _, b := range d.BARs {
		if b.IsMemory() && b.Prefetchable() {
			n = max(n, b.SizeBytes)
		}
	}
	return n
}

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

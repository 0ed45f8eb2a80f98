// Package pci enumerates PCI devices from Linux sysfs and gives the PCI-side
// verdict on which of them are discrete compute GPUs.
//
// Start with Scan, which reads <root>/sys/bus/pci/devices into Device values
// sorted by bus address, and Classify, which says whether a device is a
// discrete-GPU candidate and why. The package holds no model table: the
// verdict uses only the class code, a very short list of vendors that make
// nothing but server or virtual display chips, the bus position, BAR sizes
// and, for amdgpu, the VRAM size the driver reports. The final say on a
// dedicated device-local memory pool belongs to the Vulkan/WebGPU memory
// heaps, matched to these devices by bus address later.
//
// The package reads no environment: the caller passes the sysfs root (the
// CLI takes it from APPRAISE_SYSFS_ROOT, so tests can use fake trees).
package pci

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// Device is what sysfs says about one PCI function.
type Device struct {
	// BDF is the bus address, from the sysfs directory name.
	BDF BDF
	// Class is the 24-bit class code: base class, subclass, programming
	// interface (0x030200 is a 3D controller).
	Class uint32
	// VendorID is the PCI vendor id.
	VendorID uint16
	// DeviceID is the PCI device id.
	DeviceID uint16
	// SubsystemVendorID is the subsystem vendor id; 0 when sysfs has none.
	SubsystemVendorID uint16
	// SubsystemDeviceID is the subsystem device id; 0 when sysfs has none.
	SubsystemDeviceID uint16
	// Driver is the name of the bound kernel driver, empty when unbound.
	Driver string
	// BARs are the assigned standard BARs (0-5), in index order.
	BARs []BAR
	// HasROM reports whether sysfs exposes the expansion ROM ("rom" file).
	HasROM bool
	// NUMANode is the NUMA node, -1 when the kernel knows none or the file
	// is absent.
	NUMANode int
	// CurrentLink is the negotiated PCIe link; zero when not exposed.
	CurrentLink Link
	// MaxLink is the PCIe link the device supports; zero when not exposed.
	MaxLink Link
	// VRAMTotalBytes is amdgpu's mem_info_vram_total in bytes; 0 when the
	// file is absent (every driver but amdgpu).
	VRAMTotalBytes uint64
}

// Link is a PCIe link as sysfs reports it.
type Link struct {
	// Speed is the kernel's text, e.g. "32.0 GT/s PCIe" or "Unknown"; empty
	// when not exposed.
	Speed string
	// Width is the number of lanes; 0 when not exposed.
	Width int
}

// BaseClass returns the PCI base class (the top byte of Class).
func (d Device) BaseClass() uint8 { return uint8(d.Class >> 16) }

// ClassCode returns base class and subclass (0x0302 for a 3D controller).
func (d Device) ClassCode() uint16 { return uint16(d.Class >> 8) }

// LargestMemoryBAR returns the largest memory BAR and false when the device
// has no memory BAR.
func (d Device) LargestMemoryBAR() (BAR, bool) {
	var best BAR
	found := false
	for _, b := range d.BARs {
		if b.IsMemory() && (!found || b.SizeBytes > best.SizeBytes) {
			best, found = b, true
		}
	}
	return best, found
}

// Scan reads every device under <root>/sys/bus/pci/devices and returns them
// sorted by bus address. root "" or "/" is the running system. A device
// whose required file (class, vendor, device, resource) is missing or
// malformed, or whose optional file is malformed, is left out, and the
// error returned beside the devices that were read names each such entry
// and file (errors.Join of one error per entry); an absent optional file
// leaves its field unknown. When the directory itself cannot be listed,
// no devices are returned.
func Scan(root string) ([]Device, error) {
	if root == "" {
		root = "/"
	}
	dir := filepath.Join(root, "sys", "bus", "pci", "devices")
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("pci: scan: %w", err)
	}
	devs := make([]Device, 0, len(entries))
	var unreadable []error
	for _, e := range entries {
		d, err := readDevice(filepath.Join(dir, e.Name()))
		if err != nil {
			unreadable = append(unreadable, fmt.Errorf("pci: device %s left out: %w", e.Name(), err))
			continue
		}
		devs = append(devs, d)
	}
	slices.SortFunc(devs, func(a, b Device) int { return a.BDF.Compare(b.BDF) })
	return devs, errors.Join(unreadable...)
}

// readDevice reads one device directory.
func readDevice(path string) (Device, error) {
	bdf, err := parseBDF(filepath.Base(path))
	if err != nil {
		return Device{}, fmt.Errorf("pci: %s: %w", path, err)
	}
	d := Device{BDF: bdf, NUMANode: -1}
	r := reader{dir: path}
	d.Class = uint32(r.hex("class", 24, true))
	d.VendorID = uint16(r.hex("vendor", 16, true))
	d.DeviceID = uint16(r.hex("device", 16, true))
	d.SubsystemVendorID = uint16(r.hex("subsystem_vendor", 16, false))
	d.SubsystemDeviceID = uint16(r.hex("subsystem_device", 16, false))
	d.BARs = r.resource()
	d.Driver = r.driver()
	d.HasROM = r.exists("rom")
	if s, ok := r.text("numa_node", false); ok {
		d.NUMANode = r.atoi("numa_node", s)
	}
	d.CurrentLink = r.link("current_link_speed", "current_link_width")
	d.MaxLink = r.link("max_link_speed", "max_link_width")
	if s, ok := r.text("mem_info_vram_total", false); ok {
		d.VRAMTotalBytes = r.uatoi("mem_info_vram_total", s, 64)
	}
	if r.err != nil {
		return Device{}, r.err
	}
	return d, nil
}

// reader reads the files of one device directory and keeps the first
// error, so readDevice stays a flat list of fields.
type reader struct {
	dir string
	err error
}

// fail records the first error, naming the file.
func (r *reader) fail(name string, err error) {
	if r.err == nil {
		r.err = fmt.Errorf("pci: %s: %w", filepath.Join(r.dir, name), err)
	}
}

// text returns the trimmed content of a file and whether it exists. A
// missing required file, or any read error other than absence, is recorded.
func (r *reader) text(name string, required bool) (string, bool) {
	if r.err != nil {
		return "", false
	}
	b, err := os.ReadFile(filepath.Join(r.dir, name))
	if errors.Is(err, fs.ErrNotExist) && !required {
		return "", false
	}
	if err != nil {
		r.fail(name, err)
		return "", false
	}
	return strings.TrimSpace(string(b)), true
}

// hex reads a "0x"-prefixed hex file; 0 when an optional file is absent.
func (r *reader) hex(name string, bits int, required bool) uint64 {
	s, ok := r.text(name, required)
	if !ok {
		return 0
	}
	v, err := parseHex(s, bits)
	if err != nil {
		r.fail(name, err)
	}
	return v
}

// atoi parses the decimal content s of file name.
func (r *reader) atoi(name, s string) int {
	v, err := strconv.ParseInt(s, 10, 32)
	if err != nil {
		r.fail(name, err)
	}
	return int(v)
}

// uatoi parses the unsigned decimal content s of file name, at most bits
// bits wide.
func (r *reader) uatoi(name, s string, bits int) uint64 {
	v, err := strconv.ParseUint(s, 10, bits)
	if err != nil {
		r.fail(name, err)
	}
	return v
}

// resource reads and parses the required "resource" file.
func (r *reader) resource() []BAR {
	if r.err != nil {
		return nil
	}
	b, err := os.ReadFile(filepath.Join(r.dir, "resource"))
	if err != nil {
		r.fail("resource", err)
		return nil
	}
	bars, err := parseResource(b)
	if err != nil {
		r.fail("resource", err)
	}
	return bars
}

// driver returns the basename of the "driver" symlink, "" when unbound.
func (r *reader) driver() string {
	if r.err != nil {
		return ""
	}
	target, err := os.Readlink(filepath.Join(r.dir, "driver"))
	if errors.Is(err, fs.ErrNotExist) {
		return ""
	}
	if err != nil {
		r.fail("driver", err)
		return ""
	}
	return filepath.Base(target)
}

// exists reports whether a file exists (without following a symlink).
func (r *reader) exists(name string) bool {
	if r.err != nil {
		return false
	}
	_, err := os.Lstat(filepath.Join(r.dir, name))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		r.fail(name, err)
	}
	return err == nil
}

// link reads a speed/width pair of optional files.
func (r *reader) link(speedFile, widthFile string) Link {
	var l Link
	l.Speed, _ = r.text(speedFile, false)
	if s, ok := r.text(widthFile, false); ok {
		l.Width = int(r.uatoi(widthFile, s, 16))
	}
	return l
}

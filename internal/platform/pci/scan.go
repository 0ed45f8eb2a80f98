// Package pci enumerates PCI devices from Linux sysfs and gives the PCI-side
// verdict on which are discrete compute GPUs: start with Scan and Classify.
// It holds no model table and reads no environment; callers pass the root.
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
	BDF               BDF    // from the sysfs directory name
	Class             uint32 // base class, subclass, prog-if (0x030200: 3D controller)
	VendorID          uint16
	DeviceID          uint16
	SubsystemVendorID uint16 // 0 when sysfs has none
	SubsystemDeviceID uint16 // 0 when sysfs has none
	Driver            string // "" when unbound
	BARs              []BAR  // assigned standard BARs, in index order
	HasROM            bool   // sysfs exposes the expansion ROM
	NUMANode          int    // -1 when unknown
	CurrentLink       Link   // negotiated; zero when not exposed
	MaxLink           Link   // supported; zero when not exposed
	VRAMTotalBytes    uint64 // amdgpu's mem_info_vram_total; 0 for other drivers
}

// Link is a PCIe link as sysfs reports it.
type Link struct {
	Speed string // the kernel's text ("32.0 GT/s PCIe"); "" when not exposed
	Width int    // lanes; 0 when not exposed
}

// BaseClass returns the PCI base class (the top byte of Class).
func (d Device) BaseClass() uint8 { return uint8(d.Class >> 16) }

// ClassCode returns base class and subclass (0x0302 for a 3D controller).
func (d Device) ClassCode() uint16 { return uint16(d.Class >> 8) }

// LargestMemoryBAR returns the largest memory BAR, false when d has none.
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

// Scan reads every device under <root>/sys/bus/pci/devices ("" is the running
// system), sorted by bus address. A device with a missing required file or a
// malformed file is left out and named in the joined error returned beside
// the others; an absent optional file leaves its field unknown.
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

// reader reads one device directory's files, keeping the first error.
type reader struct {
	dir string
	err error
}

func (r *reader) fail(name string, err error) {
	if r.err == nil {
		r.err = fmt.Errorf("pci: %s: %w", filepath.Join(r.dir, name), err)
	}
}

// text returns a file's trimmed content and whether it exists. Any read error
// but the absence of an optional file is recorded.
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

func (r *reader) atoi(name, s string) int {
	v, err := strconv.ParseInt(s, 10, 32)
	if err != nil {
		r.fail(name, err)
	}
	return int(v)
}

func (r *reader) uatoi(name, s string, bits int) uint64 {
	v, err := strconv.ParseUint(s, 10, bits)
	if err != nil {
		r.fail(name, err)
	}
	return v
}

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

func (r *reader) link(speedFile, widthFile string) Link {
	var l Link
	l.Speed, _ = r.text(speedFile, false)
	if s, ok := r.text(widthFile, false); ok {
		l.Width = int(r.uatoi(widthFile, s, 16))
	}
	return l
}

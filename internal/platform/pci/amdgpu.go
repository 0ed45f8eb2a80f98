package pci

import (
	"errors"
	"fmt"
)

// ErrNotAMDGPU is returned by AMDIdentity for a device not bound to amdgpu.
var ErrNotAMDGPU = errors.New("device not bound to amdgpu")

// Keys of AMD.Missing. They match package nvml's keys where the field means
// the same.
const (
	FieldVBIOSVersion   = "vbios_version"
	FieldUniqueID       = "unique_id"
	FieldProductName    = "product_name"
	FieldProductNumber  = "product_number"
	FieldSerialNumber   = "serial_number"
	FieldVRAMTotalBytes = "memory_total_bytes"
)

// AMD is the identity amdgpu's sysfs files give a card; it is metadata only.
// A field the driver does not expose stays zero and Missing says why.
type AMD struct {
	VBIOSVersion   string            // as the driver reports it, e.g. "113-D7020100-102"
	UniqueID       string            // the ASIC's 64-bit serial, 16 hex digits
	ProductName    string            // from the board's FRU
	ProductNumber  string            // from the board's FRU
	SerialNumber   string            // from the board's FRU
	VRAMTotalBytes uint64            // mem_info_vram_total, bytes
	Missing        map[string]string // Field… key → why it is missing; nil when none is
}

// AMDIdentity reads the identity files amdgpu exposes for the device at bdf
// below root ("" is the running system). It fails only when the device is
// absent or not bound to amdgpu (ErrNotAMDGPU).
func AMDIdentity(root string, bdf BDF) (AMD, error) {
	dir, err := deviceDir(root, bdf)
	if err != nil {
		return AMD{}, fmt.Errorf("pci: amdgpu identity: %w", err)
	}
	drv, err := boundDriver(dir)
	if err != nil {
		return AMD{}, fmt.Errorf("pci: amdgpu identity: %s: %w", bdf, err)
	}
	if drv != "amdgpu" {
		return AMD{}, fmt.Errorf("pci: amdgpu identity: %s: driver is %s: %w", bdf, driverName(drv), ErrNotAMDGPU)
	}
	a := attrs{dir: dir}
	id := AMD{
		VBIOSVersion:  a.text(FieldVBIOSVersion, "vbios_version"),
		UniqueID:      a.text(FieldUniqueID, "unique_id"),
		ProductName:   a.text(FieldProductName, "product_name"),
		ProductNumber: a.text(FieldProductNumber, "product_number"),
		SerialNumber:  a.text(FieldSerialNumber, "serial_number"),
	}
	id.VRAMTotalBytes, _ = a.uint(FieldVRAMTotalBytes, "mem_info_vram_total")
	id.Missing = a.missing
	return id, nil
}

func driverName(drv string) string {
	if drv == "" {
		return "none"
	}
	return fmt.Sprintf("%q", drv)
}

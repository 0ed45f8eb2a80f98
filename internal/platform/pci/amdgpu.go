package pci

import (
	"errors"
	"fmt"
)

// ErrNotAMDGPU says the device is not bound to the amdgpu driver, so the
// amdgpu identity files are not there to read.
var ErrNotAMDGPU = errors.New("device not bound to amdgpu")

// Keys of AMD.Missing, one per field. They match internal/nvml's keys
// where the field means the same.
const (
	FieldVBIOSVersion   = "vbios_version"
	FieldUniqueID       = "unique_id"
	FieldProductName    = "product_name"
	FieldProductNumber  = "product_number"
	FieldSerialNumber   = "serial_number"
	FieldVRAMTotalBytes = "memory_total_bytes"
)

// AMD is what the amdgpu driver's sysfs files say names a card. It is
// metadata only: no field enters a score. Each field is read on its own;
// one the driver does not expose stays at its zero value and Missing says
// why. Which files exist depends on the ASIC and kernel: unique_id only
// where the SMU reports one (Vega20 and later, not all consumer parts);
// product_name, product_number and serial_number come from the board's
// FRU EEPROM, which mostly data-centre (Instinct) boards carry.
type AMD struct {
	// VBIOSVersion is vbios_version exactly as the driver reports it, e.g.
	// "113-D7020100-102".
	VBIOSVersion string
	// UniqueID is unique_id, the ASIC's 64-bit serial as 16 hex digits.
	UniqueID string
	// ProductName is the board's product name from its FRU.
	ProductName string
	// ProductNumber is the board's part number from its FRU.
	ProductNumber string
	// SerialNumber is the board serial number from its FRU.
	SerialNumber string
	// VRAMTotalBytes is mem_info_vram_total, bytes.
	VRAMTotalBytes uint64
	// Missing maps each Field… key that could not be read to the reason;
	// nil when every field was read.
	Missing map[string]string
}

// AMDIdentity reads the identity files amdgpu exposes for the device at bdf
// below root ("" is the running system). Fields the driver does not give
// are left empty and listed in Missing. The error is non-nil only when the
// device is absent or not bound to amdgpu (ErrNotAMDGPU).
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

// driverName quotes a driver name for a message, "none" when unbound.
func driverName(drv string) string {
	if drv == "" {
		return "none"
	}
	return fmt.Sprintf("%q", drv)
}

package nvml

import (
	"crypto/sha256"
	"encoding/hex"

	gonvml "github.com/NVIDIA/go-nvml/pkg/nvml"
)

// VBIOSHashSource names what VBIOSHash hashes, for the report's record of
// where a card's VBIOS hash came from.
const VBIOSHashSource = "vendor-version"

// Keys of Identity.Missing, one per field.
const (
	FieldName             = "name"
	FieldSerial           = "serial"
	FieldUUID             = "uuid"
	FieldVBIOSVersion     = "vbios_version"
	FieldPCI              = "pci" // BusID, PCIDeviceID and PCISubsystemID come from one call
	FieldBoardPartNumber  = "board_part_number"
	FieldMemoryTotalBytes = "memory_total_bytes"
)

// Identity is what NVML says names a card. It is metadata only: no field
// enters a score. Each field is read on its own; one NVML does not support
// stays at its zero value and Missing says why.
type Identity struct {
	// Name is the product name, e.g. "NVIDIA H200".
	Name string
	// Serial is the board serial number printed on the card.
	Serial string
	// UUID is the GPU's UUID, e.g. "GPU-…".
	UUID string
	// VBIOSVersion is the VBIOS version string exactly as NVML reports it.
	VBIOSVersion string
	// BusID is the bus address in sysfs form, "0000:00:06.0".
	BusID string
	// PCIDeviceID is the PCI device id in the high 16 bits and the vendor
	// id in the low 16 bits, as NVML reports it (0x233510de for an H200).
	PCIDeviceID uint32
	// PCISubsystemID is the subsystem device id in the high 16 bits and the
	// subsystem vendor id in the low 16 bits (0x18bf10de on the H200).
	PCISubsystemID uint32
	// BoardPartNumber is the board's part number.
	BoardPartNumber string
	// MemoryTotalBytes is the device memory NVML reports as total, bytes.
	MemoryTotalBytes uint64
	// Missing maps each Field… key that could not be read to the NVML
	// error that says why; nil when every field was read.
	Missing map[string]string
}

// VBIOSHash returns the lower-case hex SHA-256 of the VBIOS version string,
// byte for byte as NVML reported it (source VBIOSHashSource), or "" for an
// empty version, which names no VBIOS.
//
// The VBIOS hash should be of the ROM image, but NVIDIA data-centre hosts
// like the H200 pass-through VMs expose no sysfs "rom" file, and NVML has no
// call that returns the image. The version string is the closest identity
// NVML gives: it tells VBIOS builds apart, though not two images that carry
// the same version. Reports record the source so the two kinds of hash are
// never compared with each other.
func VBIOSHash(version string) string {
	if version == "" {
		return ""
	}
	sum := sha256.Sum256([]byte(version))
	return hex.EncodeToString(sum[:])
}

// Identity reads the card's identity. Fields NVML cannot give are left
// empty and listed in Missing. The error is non-nil only when the device or
// library as a whole failed (ErrClosed, ErrGPULost, a driver gone away); the
// Identity then holds what was read before.
func (d *Device) Identity() (Identity, error) {
	var id Identity
	err := d.lib.use(func() error {
		var f fields
		id.Name = f.str(FieldName, "nvmlDeviceGetName", d.dev.GetName)
		id.Serial = f.str(FieldSerial, "nvmlDeviceGetSerial", d.dev.GetSerial)
		id.UUID = f.str(FieldUUID, "nvmlDeviceGetUUID", d.dev.GetUUID)
		id.VBIOSVersion = f.str(FieldVBIOSVersion, "nvmlDeviceGetVbiosVersion", d.dev.GetVbiosVersion)
		id.BoardPartNumber = f.str(FieldBoardPartNumber, "nvmlDeviceGetBoardPartNumber", d.dev.GetBoardPartNumber)
		d.readPCI(&f, &id)
		if m, r := d.dev.GetMemoryInfo(); f.ok(FieldMemoryTotalBytes, "nvmlDeviceGetMemoryInfo", r) {
			id.MemoryTotalBytes = m.Total
		}
		id.Missing = f.missing
		return f.err
	})
	return id, err
}

// readPCI fills the PCI ids and bus address from one nvmlDeviceGetPciInfo.
func (d *Device) readPCI(f *fields, id *Identity) {
	p, r := d.dev.GetPciInfo()
	if !f.ok(FieldPCI, "nvmlDeviceGetPciInfo", r) {
		return
	}
	id.PCIDeviceID, id.PCISubsystemID = p.PciDeviceId, p.PciSubSystemId
	raw := cString(p.BusId[:])
	if bdf, err := FromNVMLBusID(raw); err == nil {
		id.BusID = bdf
	} else {
		f.note(FieldPCI, err.Error())
	}
}

// cString returns the NUL-terminated text in a C char array.
func cString(b []int8) string {
	s := make([]byte, 0, len(b))
	for _, c := range b {
		if c == 0 {
			break
		}
		s = append(s, byte(c))
	}
	return string(s)
}

// fields collects the outcome of a run of best-effort NVML reads.
type fields struct {
	missing map[string]string
	err     error // the first failure of the device or library as a whole
}

// ok reports whether r is SUCCESS, recording the failure under key if not.
func (f *fields) ok(key, op string, r gonvml.Return) bool {
	if r == gonvml.SUCCESS {
		return true
	}
	e := newError(op, r)
	if fatal(r) && f.err == nil {
		f.err = e
	}
	f.note(key, e.Error())
	return false
}

// str runs a string query, returning "" when it fails.
func (f *fields) str(key, op string, get func() (string, gonvml.Return)) string {
	s, r := get()
	if !f.ok(key, op, r) {
		return ""
	}
	return s
}

// note records why key is missing.
func (f *fields) note(key, reason string) {
	if f.missing == nil {
		f.missing = map[string]string{}
	}
	f.missing[key] = reason
}

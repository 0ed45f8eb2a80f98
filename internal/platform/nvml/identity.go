package nvml

import (
	"crypto/sha256"
	"encoding/hex"

	gonvml "github.com/NVIDIA/go-nvml/pkg/nvml"
)

// VBIOSHashSource names what VBIOSHash hashes.
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

// Identity is what NVML says names a card; it is metadata only. A field NVML
// does not support stays zero and Missing says why.
type Identity struct {
	Name             string
	Serial           string // printed on the board
	UUID             string // "GPU-…"
	VBIOSVersion     string // as NVML reports it
	BusID            string // sysfs form, "0000:00:06.0"
	PCIDeviceID      uint32 // device id << 16 | vendor id
	PCISubsystemID   uint32 // subsystem device id << 16 | subsystem vendor id
	BoardPartNumber  string
	MemoryTotalBytes uint64            // bytes
	Missing          map[string]string // Field… key → NVML's error; nil when none is
}

// VBIOSHash returns the lower-case hex SHA-256 of a VBIOS version string, ""
// for an empty one. It tells builds apart, not two images of one version.
func VBIOSHash(version string) string {
	if version == "" {
		return ""
	}
	sum := sha256.Sum256([]byte(version))
	return hex.EncodeToString(sum[:])
}

// Identity reads the card's identity, listing in Missing what NVML cannot
// give. The error is non-nil only when the device or library as a whole
// failed (ErrClosed, ErrGPULost); the Identity then holds what was read.
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

func (f *fields) str(key, op string, get func() (string, gonvml.Return)) string {
	s, r := get()
	if !f.ok(key, op, r) {
		return ""
	}
	return s
}

func (f *fields) note(key, reason string) {
	if f.missing == nil {
		f.missing = map[string]string{}
	}
	f.missing[key] = reason
}

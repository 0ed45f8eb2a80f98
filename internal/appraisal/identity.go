package appraisal

import (
	"fmt"

	"github.com/everycycle/appraise/internal/nvml"
	"github.com/everycycle/appraise/schema"
)

// vendorIdentity fills serial, UUID and VBIOS hash from the vendor's
// management library — NVML for NVIDIA cards — and returns an omission for
// each it could not read. Identity is metadata: nothing here is scored.
func vendorIdentity(lib *nvml.Lib, libErr error, c Candidate, v *schema.CapabilityVector) []schema.Omission {
	id := &v.Identity
	switch {
	case c.Adapter.Software:
		return omit("a software adapter has no board identity", "identity.bus_address", "identity.vbios_hash", "identity.serial", "identity.uuid")
	case id.VendorID != "10de":
		return omit(fmt.Sprintf("no vendor identity source for vendor %s in this probe suite", id.VendorID), "identity.vbios_hash", "identity.serial", "identity.uuid")
	case libErr != nil:
		return omit("NVML: "+libErr.Error(), "identity.vbios_hash", "identity.serial", "identity.uuid")
	case id.BusAddress == "":
		return omit("the bus address is unknown, so the NVML device cannot be found", "identity.vbios_hash", "identity.serial", "identity.uuid")
	}
	d, err := lib.DeviceByBusID(id.BusAddress)
	if err != nil {
		return omit("NVML: "+err.Error(), "identity.vbios_hash", "identity.serial", "identity.uuid")
	}
	nid, err := d.Identity()
	if err != nil {
		return omit("NVML: "+err.Error(), "identity.vbios_hash", "identity.serial", "identity.uuid")
	}
	id.Serial, id.UUID = nid.Serial, nid.UUID
	if h := nvml.VBIOSHash(nid.VBIOSVersion); h != "" {
		id.VBIOSHash, id.VBIOSHashSource = h, nvml.VBIOSHashSource
	}
	var out []schema.Omission
	for _, f := range [][2]string{{"identity.vbios_hash", nvml.FieldVBIOSVersion}, {"identity.serial", nvml.FieldSerial}, {"identity.uuid", nvml.FieldUUID}} {
		if why, ok := nid.Missing[f[1]]; ok {
			out = append(out, schema.Omission{Field: f[0], Reason: "NVML: " + why})
		}
	}
	return out
}

func omit(reason string, fields ...string) []schema.Omission {
	out := make([]schema.Omission, len(fields))
	for i, f := range fields {
		out[i] = schema.Omission{Field: f, Reason: reason}
	}
	return out
}

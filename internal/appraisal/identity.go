package appraisal

import (
	"fmt"

	"github.com/everycycle/appraise/internal/platform/nvml"
	"github.com/everycycle/appraise/internal/platform/pci"
	"github.com/everycycle/appraise/schema"
)

// identityFields are the optional identity fields a vendor source fills.
var identityFields = []string{"identity.vbios_hash", "identity.serial", "identity.uuid"}

// vendorIdentity fills VBIOS hash, serial and UUID, omitting each it cannot.
func vendorIdentity(lib *nvml.Lib, libErr error, c Candidate, v *schema.CapabilityVector, sysfsRoot string) []schema.Omission {
	id := &v.Identity
	if c.Adapter.Software {
		return omit("a software adapter has no board identity", append([]string{"identity.bus_address"}, identityFields...)...)
	}
	if c.PCI != nil && c.PCI.HasROM {
		if h, err := pci.ROMHash(sysfsRoot, c.PCI.BDF); err == nil {
			id.VBIOSHash, id.VBIOSHashSource = h, pci.ROMHashSource
		}
	}
	var out []schema.Omission
	switch {
	case id.BusAddress == "":
		out = omit("the bus address is unknown, so the vendor's identity source cannot find the device", identityFields...)
	case id.VendorID == "10de" && libErr != nil:
		out = omit("NVML: "+libErr.Error(), identityFields...)
	case id.VendorID == "10de":
		out = nvidiaIdentity(lib, id)
	case c.PCI != nil && c.PCI.Driver == "amdgpu":
		out = amdIdentity(sysfsRoot, c.PCI.BDF, id)
	default:
		out = omit(fmt.Sprintf("no identity source for vendor %s and driver %q in this probe suite", id.VendorID, driverOf(c)), identityFields...)
	}
	return keepAbsent(out, id)
}

func nvidiaIdentity(lib *nvml.Lib, id *schema.DeviceIdentity) []schema.Omission {
	d, err := lib.DeviceByBusID(id.BusAddress)
	if err != nil {
		return omit("NVML: "+err.Error(), identityFields...)
	}
	nid, err := d.Identity()
	if err != nil {
		return omit("NVML: "+err.Error(), identityFields...)
	}
	id.Serial, id.UUID = nid.Serial, nid.UUID
	if h := nvml.VBIOSHash(nid.VBIOSVersion); h != "" && id.VBIOSHash == "" {
		id.VBIOSHash, id.VBIOSHashSource = h, nvml.VBIOSHashSource
	}
	return missing(nid.Missing, "NVML", map[string]string{"identity.vbios_hash": nvml.FieldVBIOSVersion, "identity.serial": nvml.FieldSerial, "identity.uuid": nvml.FieldUUID})
}

func amdIdentity(root string, bdf pci.BDF, id *schema.DeviceIdentity) []schema.Omission {
	a, err := pci.AMDIdentity(root, bdf)
	if err != nil {
		return omit("amdgpu: "+err.Error(), identityFields...)
	}
	id.Serial = a.SerialNumber
	if id.Serial == "" {
		id.Serial = a.UniqueID
	}
	if h := pci.VersionHash(a.VBIOSVersion); h != "" && id.VBIOSHash == "" {
		id.VBIOSHash, id.VBIOSHashSource = h, pci.VersionHashSource
	}
	out := missing(a.Missing, "amdgpu", map[string]string{"identity.vbios_hash": pci.FieldVBIOSVersion, "identity.serial": pci.FieldSerialNumber})
	return append(out, schema.Omission{Field: "identity.uuid", Reason: "amdgpu exposes no device UUID in sysfs"})
}

// missing is the omissions for a source's Missing keys, in identityFields order.
func missing(m map[string]string, source string, keys map[string]string) []schema.Omission {
	var out []schema.Omission
	for _, f := range identityFields {
		if why, ok := m[keys[f]]; ok && keys[f] != "" {
			out = append(out, schema.Omission{Field: f, Reason: source + ": " + why})
		}
	}
	return out
}

// keepAbsent drops omissions for fields that ended up filled.
func keepAbsent(oms []schema.Omission, id *schema.DeviceIdentity) []schema.Omission {
	filled := map[string]bool{"identity.vbios_hash": id.VBIOSHash != "", "identity.serial": id.Serial != "", "identity.uuid": id.UUID != ""}
	var out []schema.Omission
	for _, o := range oms {
		if !filled[o.Field] {
			out = append(out, o)
		}
	}
	return out
}

func driverOf(c Candidate) string {
	if c.PCI == nil {
		return ""
	}
	return c.PCI.Driver
}

func omit(reason string, fields ...string) []schema.Omission {
	out := make([]schema.Omission, len(fields))
	for i, f := range fields {
		out[i] = schema.Omission{Field: f, Reason: reason}
	}
	return out
}

package schema

// ReportVersion is the report format's version, the only one this package reads.
const ReportVersion = "1"

// AlgEd25519 is the only signature algorithm.
const AlgEd25519 = "ed25519"

// CardPayload is the signed content of a card report: one physical device.
type CardPayload struct {
	// ReportVersion is ReportVersion.
	ReportVersion string `json:"report_version" validate:"eq=1"`
	// ProbedAt is when the appraisal started, RFC 3339 in UTC.
	ProbedAt string `json:"probed_at" validate:"rfc3339utc"`
	// BoxReport is the hex SHA-256 of the canonical payload of the run's box report.
	BoxReport string `json:"box_report" validate:"sha256hex"`
	// Capability is the measured capability vector.
	Capability CapabilityVector `json:"capability"`
}

// BoxPayload is the signed content of a box report: one run on one host.
type BoxPayload struct {
	// ReportVersion is ReportVersion.
	ReportVersion string `json:"report_version" validate:"eq=1"`
	// ProbedAt is when the run started, RFC 3339 in UTC.
	ProbedAt string `json:"probed_at" validate:"rfc3339utc"`
	// Host identifies the machine the devices sat in.
	Host Host `json:"host"`
	// PresentDevices lists every device seen: a PCI BDF, "adapter-N" or "software-N".
	PresentDevices []string `json:"present_devices" validate:"min=1,dive,devaddr"`
	// DriverVersions gives the driver bound to each appraised device.
	DriverVersions []DriverBinding `json:"driver_versions" validate:"min=1,dive"`
	// AmbientC is the ambient (inlet) temperature in °C, when known.
	AmbientC *float64 `json:"ambient_c,omitempty" validate:"omitempty,gte=-50,lte=80"`
	// ProbeSuiteVersion is the version of appraise that ran.
	ProbeSuiteVersion string `json:"probe_suite_version" validate:"required,max=64"`
	// HostBaseline is the host CPU's own measured vector, when measured.
	HostBaseline *HostBaseline `json:"host_baseline,omitempty" validate:"omitempty"`
	// HostLinks is every device's host link measured at once, for two or more devices.
	HostLinks *HostLinksAtOnce `json:"host_links,omitempty" validate:"omitempty"`
	// NotMeasured lists each absent field with why.
	NotMeasured []Omission `json:"not_measured,omitempty" validate:"omitempty,dive"`
	// FailedDevices lists the devices that have no card, which stay in PresentDevices.
	FailedDevices []FailedDevice `json:"failed_devices,omitempty" validate:"omitempty,dive"`
}

// FailedDevice is a device of a run whose appraisal failed.
type FailedDevice struct {
	// BusAddress is the device address, as in PresentDevices.
	BusAddress string `json:"bus_address" validate:"devaddr"`
	// Reason is the error that failed it.
	Reason string `json:"reason" validate:"required,max=500"`
}

// Host identifies the machine of a run.
type Host struct {
	// Hostname is the host's name.
	Hostname string `json:"hostname" validate:"required,max=256"`
	// DMIString is the board vendor, product and version from DMI, when readable.
	DMIString string `json:"dmi_string,omitempty" validate:"max=512"`
	// CPUModel is the CPU model name.
	CPUModel string `json:"cpu_model" validate:"max=256"`
	// OS is the operating system.
	OS string `json:"os" validate:"required,ident"`
	// Arch is the architecture.
	Arch string `json:"arch" validate:"required,ident"`
	// LogicalCPUs is the number of logical CPUs.
	LogicalCPUs int `json:"logical_cpus" validate:"gte=1"`
}

// HostLinksAtOnce is every appraised device's host link, measured on all at
// once, each device in its own thread.
type HostLinksAtOnce struct {
	// Devices holds each device's two directions, in the order of DriverVersions.
	Devices []DeviceHostLink `json:"devices" validate:"min=2,dive"`
	// HostToDeviceBytesPerS is the sum of the devices' medians, in bytes/s.
	HostToDeviceBytesPerS float64 `json:"host_to_device_bytes_per_s" validate:"gt=0"`
	// DeviceToHostBytesPerS is the sum of the devices' medians, in bytes/s.
	DeviceToHostBytesPerS float64 `json:"device_to_host_bytes_per_s" validate:"gt=0"`
}

// DeviceHostLink is one device's host link within HostLinksAtOnce.
type DeviceHostLink struct {
	// BusAddress is the device address, as in DriverVersions.
	BusAddress string `json:"bus_address" validate:"devaddr"`
	// HostToDevice is the host → device direction.
	HostToDevice Transfer `json:"host_to_device"`
	// DeviceToHost is the device → host direction.
	DeviceToHost Transfer `json:"device_to_host"`
}

// DriverBinding says which driver a device ran under.
type DriverBinding struct {
	// BusAddress is the device address, as in PresentDevices.
	BusAddress string `json:"bus_address" validate:"devaddr"`
	// DriverVersion is the driver's own version string.
	DriverVersion string `json:"driver_version" validate:"required,max=256"`
}

// Signature is the detached signature inlined in every report.
type Signature struct {
	// Alg is AlgEd25519.
	Alg string `json:"alg" validate:"eq=ed25519"`
	// TenantIdentity is the tenant that signed.
	TenantIdentity string `json:"tenant_identity" validate:"required,max=64"`
	// TenantPubkey is the 32-byte Ed25519 public key, padded standard base64.
	TenantPubkey string `json:"tenant_pubkey" validate:"b64len=32"`
	// Sig is the 64-byte signature of the payload's RFC 8785 form, padded standard base64.
	Sig string `json:"sig" validate:"b64len=64"`
}

// Card is a signed card report as written to disk.
type Card struct {
	// Payload is the signed content.
	Payload CardPayload `json:"payload"`
	// Signature covers the canonical bytes of Payload.
	Signature Signature `json:"signature"`
}

// Box is a signed box report as written to disk.
type Box struct {
	// Payload is the signed content.
	Payload BoxPayload `json:"payload"`
	// Signature covers the canonical bytes of Payload.
	Signature Signature `json:"signature"`
}

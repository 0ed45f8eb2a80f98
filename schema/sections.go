package schema

import "math"

// Interconnect holds measured links: the host link, and one entry per
// ordered pair this → peer. It names no link kind, which is vendor knowledge.
type Interconnect struct {
	// HostToDevice is the host → device transfer bandwidth.
	HostToDevice *Transfer `json:"host_to_device,omitempty" validate:"omitempty"`
	// DeviceToHost is the device → host transfer bandwidth.
	DeviceToHost *Transfer `json:"device_to_host,omitempty" validate:"omitempty"`
	// Peers holds one directed link per other appraised device.
	Peers []PeerLink `json:"peers,omitempty" validate:"omitempty,dive"`
}

// Transfer is a measured bulk transfer rate.
type Transfer struct {
	// BytesPerS is bytes per second (1 GB/s = 1e9 bytes/s).
	BytesPerS Stat `json:"bytes_per_s"`
	// TransferBytes is the size of one timed transfer.
	TransferBytes uint64 `json:"transfer_bytes" validate:"gte=1,maxint53"`
	// Path names how the data moved, e.g. "webgpu-write-buffer".
	Path string `json:"path" validate:"required,ident"`
	// Probe is the name of the probe that measured it.
	Probe string `json:"probe" validate:"required,ident"`
	// Timing says how durations were measured.
	Timing TimingMethod `json:"timing" validate:"timing"`
	// Check is the reference check the received data passed.
	Check Check `json:"check"`
	// OtherPath is the same transfer on a path not kept, a chain; only
	// older cards have it: new cards never write it.
	OtherPath *Transfer `json:"other_path,omitempty" validate:"omitempty"`
}

// PeerLink is a directed link from this device to a peer.
type PeerLink struct {
	// Peer is the peer's PCI bus address (BDF).
	Peer string `json:"peer" validate:"bdf"`
	// OneWay is this → peer with the reverse direction idle.
	OneWay Transfer `json:"one_way"`
	// BothWays is this direction's rate while peer → this runs at the same time.
	BothWays *Transfer `json:"both_ways,omitempty" validate:"omitempty"`
	// LatencyS is the small-transfer latency in seconds.
	LatencyS *Stat `json:"latency_s,omitempty" validate:"omitempty"`
}

// LaunchOverhead holds the latencies that decide whether small work is
// worth sending to the device at all.
type LaunchOverhead struct {
	// EmptyDispatchS is an empty dispatch's round trip as the host sees it, in seconds.
	EmptyDispatchS Stat `json:"empty_dispatch_s"`
	// Upload1MiBS is a 1 MiB (1,048,576 bytes) upload, issue to completion, in seconds.
	Upload1MiBS Stat `json:"upload_1mib_s"`
	// DispatchPath names how the round trip ran and was waited for, e.g. "dispatch.poll-spin".
	DispatchPath string `json:"dispatch_path,omitempty" validate:"omitempty,ident"`
	// UploadPath names how the upload ran and was waited for.
	UploadPath string `json:"upload_path,omitempty" validate:"omitempty,ident"`
	// Probe is the probe that measured the round trip, and the upload unless UploadProbe is set.
	Probe string `json:"probe" validate:"required,ident"`
	// UploadProbe names the probe that measured Upload1MiBS; only older cards have it.
	UploadProbe string `json:"upload_probe,omitempty" validate:"omitempty,ident"`
	// Timing says how durations were measured.
	Timing TimingMethod `json:"timing" validate:"timing"`
	// Check is the reference check the uploaded and written data passed.
	Check Check `json:"check"`
	// OtherPaths are the figures of paths not kept; only older cards
	// have them: new cards never write them.
	OtherPaths []OtherLatency `json:"other_paths,omitempty" validate:"omitempty,dive"`
}

// OtherLatency is one launch-overhead figure as the path that was not
// kept measured it.
type OtherLatency struct {
	// Figure names the field it stands beside: "empty_dispatch_s" or
	// "upload_1mib_s".
	Figure string `json:"figure" validate:"oneof=empty_dispatch_s upload_1mib_s"`
	// LatencyS is the other path's figure, in seconds.
	LatencyS Stat `json:"latency_s"`
	// Path names how that path ran and waited, e.g. "dispatch.poll-spin".
	Path string `json:"path" validate:"required,ident"`
	// Probe is the probe that measured it.
	Probe string `json:"probe" validate:"required,ident"`
}

// ThermalEnvelope is the device's behaviour under sustained load.
type ThermalEnvelope struct {
	// SoakS is how long the sustained load ran, in seconds.
	SoakS float64 `json:"soak_s" validate:"gt=0"`
	// Throttled is true when throughput or clocks dropped under load.
	Throttled bool `json:"throttled"`
	// TimeToThrottleS is seconds from load start to the first throttle, if any.
	TimeToThrottleS *float64 `json:"time_to_throttle_s,omitempty" validate:"omitempty,gte=0"`
	// ThrottledFraction is sustained ÷ cold throughput (unitless, 1 = no loss).
	ThrottledFraction float64 `json:"throttled_fraction" validate:"gt=0"`
	// SustainedPowerW is the median board power during the soak, in watts.
	SustainedPowerW *float64 `json:"sustained_power_w,omitempty" validate:"omitempty,gt=0"`
	// PeakTemperatureC is the hottest reading during the soak, in °C.
	PeakTemperatureC *float64 `json:"peak_temperature_c,omitempty" validate:"omitempty"`
	// ColdOpsPerS is the load's throughput at the start of the soak, in operations per second.
	ColdOpsPerS float64 `json:"cold_ops_per_s" validate:"gt=0"`
	// SustainedOpsPerS is the load's throughput at the end of the soak, in operations per second.
	SustainedOpsPerS float64 `json:"sustained_ops_per_s" validate:"gt=0"`
	// Workload names the sustained load, e.g. "fma fp32".
	Workload string `json:"workload" validate:"required,max=64"`
	// Points is how many timed pieces of the load the envelope is drawn from.
	Points int `json:"points" validate:"gte=4"`
	// Telemetry names where readings came from: "nvml", "hwmon" or "none".
	Telemetry string `json:"telemetry" validate:"oneof=nvml hwmon none"`
	// Timeline is the soak in equal steps, each the median of its pieces and readings.
	Timeline []ThermalStep `json:"timeline,omitempty" validate:"omitempty,max=120,dive"`
	// Probe is the name of the probe that ran the soak.
	Probe string `json:"probe" validate:"required,ident"`
	// PowerLimitW is the board power limit the driver enforces, in watts, when reported.
	PowerLimitW *float64 `json:"power_limit_w,omitempty" validate:"omitempty,gt=0"`
	// PowerLimitFraction is SustainedPowerW ÷ PowerLimitW (unitless), when both are known.
	PowerLimitFraction *float64 `json:"power_limit_fraction,omitempty" validate:"omitempty,gt=0"`
	// Check is the reference check the load's output passed at the end of the soak.
	Check *Check `json:"check,omitempty" validate:"omitempty"`
	// DevicesSoakedTogether counts the run's devices soaking at once, this one
	// included; absent in older cards, which soaked alone.
	DevicesSoakedTogether int `json:"devices_soaked_together,omitempty" validate:"omitempty,gte=1"`
}

// RooflineRatio says how close a precision's compute sits to the model
// min(PeakOpsPerS, BandwidthBytesPerS × I) at arithmetic intensity I, both
// roofs the highest the same sweep reached. A healthy device sits near 1.
type RooflineRatio struct {
	// Precision names the swept work, e.g. "fma.fp32" or "mad.int32".
	Precision string `json:"precision" validate:"required,max=64"`
	// Ratio is the median over the points of achieved ÷ modelled throughput (unitless).
	Ratio float64 `json:"ratio" validate:"gt=0"`
	// RidgeRatio is achieved ÷ modelled at the point nearest the ridge (unitless).
	RidgeRatio float64 `json:"ridge_ratio" validate:"gt=0"`
	// PeakOpsPerS is the model's compute roof, in operations per second.
	PeakOpsPerS float64 `json:"peak_ops_per_s" validate:"gt=0"`
	// BandwidthBytesPerS is the model's memory roof, in bytes per second.
	BandwidthBytesPerS float64 `json:"bandwidth_bytes_per_s" validate:"gt=0"`
	// Points are the swept intensities with what was achieved there.
	Points []RooflinePoint `json:"points" validate:"min=3,dive"`
	// Probe is the name of the probe that swept it.
	Probe string `json:"probe" validate:"required,ident"`
	// Timing says how durations were measured.
	Timing TimingMethod `json:"timing" validate:"timing"`
	// Check is the reference check every point's output passed.
	Check Check `json:"check"`
}

// RooflinePoint is one arithmetic intensity of a roofline sweep.
type RooflinePoint struct {
	// IntensityOpsPerByte is operations per byte of device memory moved.
	IntensityOpsPerByte float64 `json:"intensity_ops_per_byte" validate:"gt=0"`
	// OpsPerS is the median throughput achieved, operations per second.
	OpsPerS float64 `json:"ops_per_s" validate:"gt=0"`
	// ModelOpsPerS is min(peak, bandwidth × intensity), operations per second.
	ModelOpsPerS float64 `json:"model_ops_per_s" validate:"gt=0"`
}

// DeviceIdentity anchors "this is the same physical card across time".
// It is metadata only and never an input to scoring or routing.
type DeviceIdentity struct {
	// BusAddress is the PCI bus address (BDF), e.g. "0000:01:00.0", if the device has one.
	BusAddress string `json:"bus_address,omitempty" validate:"omitempty,bdf"`
	// VendorID is the PCI or Khronos vendor id in lowercase hex, e.g. "10de" or "10005".
	VendorID string `json:"vendor_id" validate:"hexid"`
	// DeviceID is the device id in lowercase hex, four digits or more.
	DeviceID string `json:"device_id" validate:"hexid"`
	// SubsystemVendorID is the PCI subsystem vendor id, when known.
	SubsystemVendorID string `json:"subsystem_vendor_id,omitempty" validate:"omitempty,hexid"`
	// SubsystemDeviceID is the PCI subsystem device id, when known.
	SubsystemDeviceID string `json:"subsystem_device_id,omitempty" validate:"omitempty,hexid"`
	// Name is the name the driver reports (metadata; never used in scoring).
	Name string `json:"name" validate:"max=256"`
	// VBIOSHash is the lowercase hex SHA-256 of the VBIOS (see VBIOSHashSource).
	VBIOSHash string `json:"vbios_hash,omitempty" validate:"omitempty,sha256hex"`
	// VBIOSHashSource says what was hashed: "rom" or "vendor-version".
	VBIOSHashSource string `json:"vbios_hash_source,omitempty" validate:"required_with=VBIOSHash,omitempty,oneof=rom vendor-version"`
	// Serial is the board serial number, when the driver exposes one.
	Serial string `json:"serial,omitempty" validate:"max=128"`
	// UUID is the device UUID, when the driver exposes one.
	UUID string `json:"uuid,omitempty" validate:"max=128"`
	// AdapterType is the API's device type, e.g. "discrete-gpu" or "cpu".
	AdapterType string `json:"adapter_type" validate:"oneof=discrete-gpu integrated-gpu virtual-gpu cpu unknown"`
	// Software is true for a software rasteriser running on the CPU, not a GPU.
	Software bool `json:"software"`
}

// ProbeEnvironment says under which conditions the figures were taken.
// Two reports are directly comparable only when these agree.
type ProbeEnvironment struct {
	// DriverVersion is the driver's own version string.
	DriverVersion string `json:"driver_version" validate:"required,max=256"`
	// Backend is the graphics API the probes ran through, e.g. "vulkan".
	Backend string `json:"backend" validate:"required,ident"`
	// AmbientC is the ambient (inlet) temperature in °C, when known.
	AmbientC *float64 `json:"ambient_c,omitempty" validate:"omitempty,gte=-50,lte=80"`
	// AmbientSource says where AmbientC came from: "sensor" or "operator".
	AmbientSource string `json:"ambient_source,omitempty" validate:"required_with=AmbientC,omitempty,oneof=sensor operator"`
	// RunDurationS is how long the appraisal of this device took, in seconds.
	RunDurationS float64 `json:"run_duration_s" validate:"gt=0"`
	// ProbeSuiteVersion is the version of appraise that ran the probes.
	ProbeSuiteVersion string `json:"probe_suite_version" validate:"required,max=64"`
	// Mode is "full" or "quick" (fewer samples, smaller sizes).
	Mode string `json:"mode" validate:"oneof=full quick"`
	// OS is the host's operating system.
	OS string `json:"os" validate:"required,ident"`
	// Arch is the host's architecture.
	Arch string `json:"arch" validate:"required,ident"`
	// Libraries lists the vendor libraries whose figures the card holds.
	Libraries []Library `json:"libraries,omitempty" validate:"omitempty,dive"`
	// SharedUse says whether anything else used the device; absent in older cards.
	SharedUse *SharedUse `json:"shared_use,omitempty"`
	// Schedule is "serial" (the run's other devices idle) or "concurrent";
	// absent in older cards, which ran devices in turn.
	Schedule string `json:"schedule,omitempty" validate:"omitempty,oneof=serial concurrent"`
}

// Library is a vendor library a probe loaded and measured through.
type Library struct {
	// Probe is the probe that loaded it, as in Probes.
	Probe string `json:"probe" validate:"required,ident"`
	// Name is the library, e.g. "cuBLASLt".
	Name string `json:"name" validate:"required,max=64"`
	// Version is the library's own version, e.g. "13.1.0".
	Version string `json:"version" validate:"required,max=64"`
	// Path is the file loaded, as the dynamic loader resolved it.
	Path string `json:"path" validate:"required,max=1024"`
	// Source says how the file was found: "option", "env", "loader" or "search".
	Source string `json:"source" validate:"oneof=option env loader search"`
}

// CrossCheck compares one of our figures with a standard tool's figure for
// the same work on the same device. A report is signed only when every
// cross-check agrees.
type CrossCheck struct {
	// Tool is the standard tool, e.g. "babelstream" or "mixbench".
	Tool string `json:"tool" validate:"required,ident"`
	// ToolVersion is the version the tool printed, or "unknown".
	ToolVersion string `json:"tool_version" validate:"required,max=64"`
	// ToolFigure names the tool's figure, e.g. "Copy (double)".
	ToolFigure string `json:"tool_figure" validate:"required,max=64"`
	// Figure names our figure, as in figures lists, e.g. "memory.bandwidth.copy".
	Figure string `json:"figure" validate:"required,max=96"`
	// Ours is our value, in the unit of Figure.
	Ours float64 `json:"ours" validate:"gt=0"`
	// Theirs is the tool's value, in the unit of Figure.
	Theirs float64 `json:"theirs" validate:"gt=0"`
	// RelativeDelta is (Ours-Theirs)/Theirs (unitless).
	RelativeDelta float64 `json:"relative_delta"`
	// Tolerance is the largest deviation Rule accepts (unitless).
	Tolerance float64 `json:"tolerance" validate:"gt=0"`
	// Rule is RuleWithin (also when absent) or RuleAtLeast.
	Rule string `json:"rule,omitempty" validate:"omitempty,oneof=within at-least"`
	// MaxRatio is the largest Ours ÷ Theirs an "at-least" check accepts (unitless).
	MaxRatio *float64 `json:"max_ratio,omitempty" validate:"omitempty,gte=1,lte=2"`
	// CeilingReason says why MaxRatio is what it is.
	CeilingReason string `json:"ceiling_reason,omitempty" validate:"required_with=MaxRatio,max=400"`
}

// Cross-check rules (CrossCheck.Rule).
const (
	RuleWithin  = "within"   // |RelativeDelta| ≤ Tolerance
	RuleAtLeast = "at-least" // RelativeDelta ≥ −Tolerance, and Ours ≤ MaxRatio × Theirs
)

// AtLeastCeiling is the largest RelativeDelta of an "at-least" check without MaxRatio.
const AtLeastCeiling = 1.0

// Agrees reports whether c passes its rule.
func (c CrossCheck) Agrees() bool {
	if c.Rule != RuleAtLeast {
		return math.Abs(c.RelativeDelta) <= c.Tolerance
	}
	if c.RelativeDelta < -c.Tolerance {
		return false
	}
	if c.MaxRatio != nil {
		return c.Ours <= *c.MaxRatio*c.Theirs
	}
	return c.RelativeDelta <= AtLeastCeiling
}

// HostBaseline is the host CPU's own measured vector, with all cores.
type HostBaseline struct {
	// Threads is the number of threads the probes ran on.
	Threads int `json:"threads" validate:"gte=1"`
	// ISA names the vector instruction path that ran, e.g. "avx2+fma", "neon".
	ISA string `json:"isa" validate:"required,max=32"`
	// Bandwidth holds host-memory bandwidth per kernel with all threads.
	Bandwidth []Bandwidth `json:"bandwidth,omitempty" validate:"omitempty,dive"`
	// LastLevelCacheBytes is the host's last-level cache, in bytes, under half a bandwidth array.
	LastLevelCacheBytes uint64 `json:"last_level_cache_bytes,omitempty"`
	// Precisions holds scalar ("fma_scalar") and vector ("fma") FMA throughput.
	Precisions []PrecisionThroughput `json:"precisions" validate:"min=1,dive"`
}

// ThermalStep is one step of a soak's timeline.
type ThermalStep struct {
	// AtS is the end of the step, seconds since the load began.
	AtS float64 `json:"at_s" validate:"gte=0"`
	// OpsPerS is the median throughput of the load in the step, in operations per second.
	OpsPerS float64 `json:"ops_per_s" validate:"gt=0"`
	// TemperatureC is the median temperature in the step, in °C, when read.
	TemperatureC *float64 `json:"temperature_c,omitempty"`
	// PowerW is the median board power in the step, in watts, when read.
	PowerW *float64 `json:"power_w,omitempty" validate:"omitempty,gte=0"`
}

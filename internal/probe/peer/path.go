package peer

// Path names how data moved between the two devices (schema.Transfer.Path).
type Path string

// The paths, in order of preference.
const (
	PathVulkanDeviceGroup Path = "vulkan-device-group" // one Vulkan device group holds both devices
	PathCUDAPeer          Path = "cuda-peer"           // the CUDA driver with peer access (MeasurePair)
	PathHostStaged        Path = "host-staged"         // device → host → device over WebGPU; always possible
)

// Probe is the name of the probe that measures over p (schema.Transfer.Probe).
func (p Path) Probe() string {
	switch p {
	case PathVulkanDeviceGroup:
		return "vulkan-device-group-peerlink"
	case PathCUDAPeer:
		return "cuda-peerlink"
	case PathHostStaged:
		return "webgpu-host-staged-peerlink"
	}
	return ""
}

// Availability is what the host offers for one ordered pair this → peer.
type Availability struct {
	VulkanDeviceGroup bool       // one group holds both and a measurer is wired
	VulkanWhy         string     // why VulkanDeviceGroup is false; "" gives a default reason
	CUDA              CUDAStatus // see DetectCUDA
}

// CUDAStatus is what the CUDA driver library offers for a pair.
type CUDAStatus struct {
	Loaded     bool   // libcuda.so.1 loaded and cuInit succeeded
	Found      bool   // both devices found by bus address
	PeerAccess bool   // cuDeviceCanAccessPeer allows both directions
	Why        string // why the path is not usable; "" when it is
}

func (s CUDAStatus) usable() bool { return s.Loaded && s.Found && s.PeerAccess }

// Choice is the path chosen for a pair.
type Choice struct {
	Path   Path
	Passed []Passed // preferred paths passed over, in order, with why
}

// Passed is a path passed over and why.
type Passed struct {
	Path Path
	Why  string
}

// Choose picks the first path a offers, in the order vulkan-device-group,
// cuda-peer, host-staged. It is pure: it reads nothing but a.
func Choose(a Availability) Choice {
	if a.VulkanDeviceGroup {
		return Choice{Path: PathVulkanDeviceGroup}
	}
	why := a.VulkanWhy
	if why == "" {
		why = "no Vulkan device group holds both devices"
	}
	passed := []Passed{{PathVulkanDeviceGroup, why}}
	if a.CUDA.usable() {
		return Choice{Path: PathCUDAPeer, Passed: passed}
	}
	return Choice{Path: PathHostStaged, Passed: append(passed, Passed{PathCUDAPeer, cudaWhy(a.CUDA)})}
}

func cudaWhy(s CUDAStatus) string {
	switch {
	case s.Why != "":
		return s.Why
	case !s.Loaded:
		return "driver library not loaded"
	case !s.Found:
		return "devices not both found by bus address"
	}
	return "peer access not possible"
}

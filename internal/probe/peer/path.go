package peer

// Path names how data moved between the two devices. It is written to the
// card as schema.Transfer.Path.
type Path string

// The paths, in order of preference.
const (
	// PathVulkanDeviceGroup: one Vulkan device group holds both devices
	// and peer memory is copied within it (AMD, Intel drivers offer this).
	PathVulkanDeviceGroup Path = "vulkan-device-group"
	// PathCUDAPeer: the CUDA driver API with peer access enabled between
	// the two devices' contexts (see MeasurePair).
	PathCUDAPeer Path = "cuda-peer"
	// PathHostStaged: device → host memory → device, through two opened
	// WebGPU devices (see MeasureHostStaged). Always possible.
	PathHostStaged Path = "host-staged"
)

// Probe is the name of the probe that measures over p, written to the card
// as schema.Transfer.Probe.
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
	// VulkanDeviceGroup is true when one Vulkan device group holds both
	// devices and a device-group measurer is wired; Vulkan showing one
	// group per device (as NVIDIA's driver does) means false.
	VulkanDeviceGroup bool
	// VulkanWhy says why VulkanDeviceGroup is false; empty means "no
	// Vulkan device group holds both devices".
	VulkanWhy string
	// CUDA is what the CUDA driver offers; see DetectCUDA.
	CUDA CUDAStatus
}

// CUDAStatus is what the CUDA driver library offers for a pair.
type CUDAStatus struct {
	// Loaded is true when libcuda.so.1 was loaded and cuInit succeeded.
	Loaded bool
	// Found is true when both devices were found by PCI bus address.
	Found bool
	// PeerAccess is true when cuDeviceCanAccessPeer allows access in both
	// directions (the probe copies both ways at once).
	PeerAccess bool
	// Why says in plain words why the path is not usable; empty when it is.
	Why string
}

// usable is true when the cuda-peer path can run.
func (s CUDAStatus) usable() bool { return s.Loaded && s.Found && s.PeerAccess }

// Choice is the path chosen for a pair.
type Choice struct {
	// Path is the chosen path.
	Path Path
	// Passed lists each preferred path passed over, in order, with why;
	// empty when the first choice was taken.
	Passed []Passed
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

// cudaWhy says why s is not usable.
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

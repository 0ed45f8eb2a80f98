package vk

import (
	"fmt"
	"slices"

	vk "github.com/vulkan-go/vulkan"
)

// Extension names we look for; Open enables those in wanted.
const (
	ExtCoopMat         = "VK_KHR_cooperative_matrix"
	ExtBFloat16        = "VK_KHR_shader_bfloat16"
	ExtFloat16Int8     = "VK_KHR_shader_float16_int8"
	ext8BitStorage     = "VK_KHR_8bit_storage"
	ext16BitStorage    = "VK_KHR_16bit_storage"
	extMemoryModel     = "VK_KHR_vulkan_memory_model"
	extBufferAddress   = "VK_KHR_buffer_device_address"
	extSubgroupControl = "VK_EXT_subgroup_size_control"
	ExtExecutableInfo  = "VK_KHR_pipeline_executable_properties"
	extPCIBusInfo      = "VK_EXT_pci_bus_info"
	ExtMemoryBudget    = "VK_EXT_memory_budget"
	extDriverProps     = "VK_KHR_driver_properties"
	ExtIntDot          = "VK_KHR_shader_integer_dot_product"
)

// PCIBusInfo is the device's PCI address (VK_EXT_pci_bus_info).
type PCIBusInfo struct {
	Domain, Bus, Device, Function uint32
}

// String renders the address as dddd:bb:dd.f.
func (p PCIBusInfo) String() string {
	return fmt.Sprintf("%04x:%02x:%02x.%x", p.Domain, p.Bus, p.Device, p.Function)
}

// DeviceInfo describes one physical device; sizes are in bytes.
type DeviceInfo struct {
	Index                  int // in vkEnumeratePhysicalDevices order
	Name                   string
	VendorID, DeviceID     uint32
	Type                   string      // "discrete-gpu", "cpu", …
	APIVersion             string      // e.g. "1.3.230"
	DriverVersion          uint32      // vendor-encoded
	DriverName, DriverInfo string      // VkPhysicalDeviceDriverProperties, when offered
	PCI                    *PCIBusInfo // nil without VK_EXT_pci_bus_info
	DeviceLocalBytes       uint64      // the largest device-local heap
	DeviceLocalBudgetBytes uint64      // its VK_EXT_memory_budget budget; 0 without
	SubgroupSize           uint32      // invocations
	TimestampPeriodNs      float64     // nanoseconds per timestamp tick
	TimestampValidBits     uint32      // of the compute queue; 0: no timestamps
	MaxSharedBytes         uint32
	MaxInvocations         uint32
	MaxStorageBufferRange  uint32
	Extensions             []string // sorted
	API                    uint32   // VK_MAKE_API_VERSION

	family            uint32
	copyFamily        int // a transfer-only family, or -1
	copyTimestampBits uint32
	// Features are what the driver offers; Structs the feature sTypes it knows.
	Features FeatureSet
	Structs  map[uint32]bool
}

// HasExtension reports whether the device lists the named extension.
func (i DeviceInfo) HasExtension(name string) bool {
	_, ok := slices.BinarySearch(i.Extensions, name)
	return ok
}

func versionString(v uint32) string { return fmt.Sprintf("%d.%d.%d", v>>22, v>>12&0x3ff, v&0xfff) }

var deviceTypes = map[vk.PhysicalDeviceType]string{
	vk.PhysicalDeviceTypeOther: "other", vk.PhysicalDeviceTypeIntegratedGpu: "integrated-gpu",
	vk.PhysicalDeviceTypeDiscreteGpu: "discrete-gpu", vk.PhysicalDeviceTypeVirtualGpu: "virtual-gpu",
	vk.PhysicalDeviceTypeCpu: "cpu",
}

// instance is a VkInstance plus the entry points vulkan-go lacks.
type instance struct {
	h   vk.Instance
	ext ext
}

func newInstance() (*instance, error) {
	gipa, err := loader()
	if err != nil {
		return nil, err
	}
	app := vk.ApplicationInfo{
		SType: vk.StructureTypeApplicationInfo, PApplicationName: "appraise\x00",
		PEngineName: "appraise\x00", ApiVersion: vk.MakeVersion(1, 3, 0),
	}
	info := vk.InstanceCreateInfo{SType: vk.StructureTypeInstanceCreateInfo, PApplicationInfo: &app}
	instanceInit.Lock()
	defer instanceInit.Unlock()
	var h vk.Instance
	if r := vk.CreateInstance(&info, nil, &h); r != vk.Success {
		return nil, fmt.Errorf("vulkan: vkCreateInstance: %w: %w", ErrNoVulkan, vk.Error(r))
	}
	inst := &instance{h: h}
	if err := vk.InitInstance(h); err != nil {
		inst.release()
		return nil, fmt.Errorf("vulkan: init instance: %w", err)
	}
	if inst.ext, err = loadExt(gipa, h); err != nil {
		inst.release()
		return nil, err
	}
	return inst, nil
}

func (in *instance) release() {
	if in != nil && in.h != nil {
		vk.DestroyInstance(in.h, nil)
		in.h = nil
	}
}

func (in *instance) physicalDevices() ([]vk.PhysicalDevice, error) {
	var n uint32
	if r := vk.EnumeratePhysicalDevices(in.h, &n, nil); r != vk.Success {
		return nil, fmt.Errorf("vulkan: vkEnumeratePhysicalDevices: %w", vk.Error(r))
	}
	pds := make([]vk.PhysicalDevice, n)
	if r := vk.EnumeratePhysicalDevices(in.h, &n, pds); r != vk.Success && r != vk.Incomplete {
		return nil, fmt.Errorf("vulkan: vkEnumeratePhysicalDevices: %w", vk.Error(r))
	}
	return pds[:n], nil
}

func deviceExtensions(pd vk.PhysicalDevice) ([]string, error) {
	var n uint32
	if r := vk.EnumerateDeviceExtensionProperties(pd, "", &n, nil); r != vk.Success {
		return nil, fmt.Errorf("vulkan: vkEnumerateDeviceExtensionProperties: %w", vk.Error(r))
	}
	props := make([]vk.ExtensionProperties, n)
	if r := vk.EnumerateDeviceExtensionProperties(pd, "", &n, props); r != vk.Success && r != vk.Incomplete {
		return nil, fmt.Errorf("vulkan: vkEnumerateDeviceExtensionProperties: %w", vk.Error(r))
	}
	out := make([]string, 0, n)
	for i := range props[:n] {
		props[i].Deref()
		out = append(out, vk.ToString(props[i].ExtensionName[:]))
	}
	slices.Sort(out)
	return out, nil
}

// describe fills a DeviceInfo for pd.
func (in *instance) describe(index int, pd vk.PhysicalDevice) (DeviceInfo, error) {
	var p vk.PhysicalDeviceProperties
	vk.GetPhysicalDeviceProperties(pd, &p)
	p.Deref()
	p.Limits.Deref()
	exts, err := deviceExtensions(pd)
	if err != nil {
		return DeviceInfo{}, err
	}
	info := DeviceInfo{
		Index: index, Name: vk.ToString(p.DeviceName[:]), VendorID: p.VendorID, DeviceID: p.DeviceID,
		Type: deviceTypes[p.DeviceType], APIVersion: versionString(p.ApiVersion), DriverVersion: p.DriverVersion,
		TimestampPeriodNs: float64(p.Limits.TimestampPeriod), MaxSharedBytes: p.Limits.MaxComputeSharedMemorySize,
		MaxInvocations: p.Limits.MaxComputeWorkGroupInvocations, MaxStorageBufferRange: p.Limits.MaxStorageBufferRange,
		Extensions: exts, API: p.ApiVersion,
	}
	if p.ApiVersion < vk.MakeVersion(1, 1, 0) {
		return info, fmt.Errorf("vulkan: %s: device API %s below 1.1", info.Name, info.APIVersion)
	}
	ep := in.ext.queryProperties(pd, info.HasExtension(extPCIBusInfo),
		p.ApiVersion >= vk.MakeVersion(1, 2, 0) || info.HasExtension(extDriverProps))
	info.SubgroupSize, info.PCI, info.DriverName, info.DriverInfo = ep.SubgroupSize, ep.PCI, ep.DriverName, ep.DriverInfo
	in.describeMemory(pd, &info)
	fams := queueFamilies(pd)
	info.family, info.TimestampValidBits, err = ComputeFamily(fams)
	info.copyFamily, info.copyTimestampBits = TransferFamily(fams)
	if err != nil {
		return info, fmt.Errorf("vulkan: %s: %w", info.Name, err)
	}
	info.Structs = featureStructs(info)
	info.Features = in.ext.queryFeatures(pd, info.Structs)
	return info, nil
}

func (in *instance) describeMemory(pd vk.PhysicalDevice, info *DeviceInfo) {
	best, size, heaps := deviceLocalHeap(pd)
	info.DeviceLocalBytes = size
	if best >= 0 && info.HasExtension(ExtMemoryBudget) {
		if b, _ := in.ext.queryBudget(pd, heaps); best < len(b) {
			info.DeviceLocalBudgetBytes = b[best]
		}
	}
}

// deviceLocalHeap returns pd's largest device-local heap (-1: none), bytes, heaps.
func deviceLocalHeap(pd vk.PhysicalDevice) (index int, size uint64, heaps int) {
	var mp vk.PhysicalDeviceMemoryProperties
	vk.GetPhysicalDeviceMemoryProperties(pd, &mp)
	mp.Deref()
	index = -1
	for i := 0; i < int(mp.MemoryHeapCount); i++ {
		mp.MemoryHeaps[i].Deref()
		h := mp.MemoryHeaps[i]
		if h.Flags&vk.MemoryHeapFlags(vk.MemoryHeapDeviceLocalBit) != 0 && uint64(h.Size) > size {
			index, size = i, uint64(h.Size)
		}
	}
	return index, size, int(mp.MemoryHeapCount)
}

func queueFamilies(pd vk.PhysicalDevice) []vk.QueueFamilyProperties {
	var n uint32
	vk.GetPhysicalDeviceQueueFamilyProperties(pd, &n, nil)
	fams := make([]vk.QueueFamilyProperties, n)
	vk.GetPhysicalDeviceQueueFamilyProperties(pd, &n, fams)
	for i := range fams[:n] {
		fams[i].Deref()
	}
	return fams[:n]
}

// ComputeFamily picks a compute queue family, preferring one with timestamps.
func ComputeFamily(fams []vk.QueueFamilyProperties) (uint32, uint32, error) {
	found, bits := pickFamily(fams, func(f vk.QueueFlags) bool { return f&vk.QueueFlags(vk.QueueComputeBit) != 0 })
	if found < 0 {
		return 0, 0, fmt.Errorf("no compute queue family")
	}
	return uint32(found), bits, nil
}

// TransferFamily picks a transfer-only queue family like ComputeFamily; -1 if none.
func TransferFamily(fams []vk.QueueFamilyProperties) (int, uint32) {
	other := vk.QueueFlags(vk.QueueGraphicsBit | vk.QueueComputeBit)
	return pickFamily(fams, func(f vk.QueueFlags) bool {
		return f&vk.QueueFlags(vk.QueueTransferBit) != 0 && f&other == 0
	})
}

// pickFamily returns the first family ok accepts, preferring one with
// timestamps, and its valid timestamp bits; -1 when none is accepted.
func pickFamily(fams []vk.QueueFamilyProperties, ok func(vk.QueueFlags) bool) (int, uint32) {
	found, bits := -1, uint32(0)
	for i, f := range fams {
		if !ok(f.QueueFlags) || f.QueueCount == 0 {
			continue
		}
		if found < 0 || (bits == 0 && f.TimestampValidBits > 0) {
			found, bits = i, f.TimestampValidBits
		}
	}
	return found, bits
}

// featureStructs says which feature structures the device understands.
func featureStructs(info DeviceInfo) map[uint32]bool {
	v12 := info.API >= vk.MakeVersion(1, 2, 0)
	return map[uint32]bool{
		sTypeIntDotFeatures:   HasIntDot(info),
		STypeFloat16Int8:      v12 || info.HasExtension(ExtFloat16Int8),
		sType16BitStorage:     true,
		sType8BitStorage:      v12 || info.HasExtension(ext8BitStorage),
		sTypeMemoryModel:      v12 || info.HasExtension(extMemoryModel),
		sTypeBFloat16Features: info.HasExtension(ExtBFloat16),
		sTypeCoopMatFeatures:  info.HasExtension(ExtCoopMat),
		sTypeAddressFeatures:  v12 || info.HasExtension(extBufferAddress),
		sTypeSubgroupControl:  info.API >= vk.MakeVersion(1, 3, 0) || info.HasExtension(extSubgroupControl),
		sTypeExecFeatures:     info.HasExtension(ExtExecutableInfo),
	}
}

// HasIntDot reports whether the device has integer dot products (core in 1.3).
func HasIntDot(info DeviceInfo) bool {
	return info.API >= vk.MakeVersion(1, 3, 0) || info.HasExtension(ExtIntDot)
}

// Devices lists every Vulkan physical device; none is ErrNoVulkan.
func Devices() ([]DeviceInfo, error) {
	var out []DeviceInfo
	err := withDevices(func(in *instance, pds []vk.PhysicalDevice) error {
		for i, pd := range pds {
			info, err := in.describe(i, pd)
			if err != nil {
				return err
			}
			out = append(out, info)
		}
		return nil
	})
	return out, err
}

// withDevices calls fn with a fresh instance and its physical devices.
func withDevices(fn func(in *instance, pds []vk.PhysicalDevice) error) error {
	in, err := newInstance()
	if err != nil {
		return err
	}
	defer in.release()
	pds, err := in.physicalDevices()
	if err != nil {
		return err
	}
	return fn(in, pds)
}

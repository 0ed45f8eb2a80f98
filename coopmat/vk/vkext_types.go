package vk

// The Go side of the Vulkan gap that needs no cgo: the structure types and
// flags vkext.go declares (values from the Vulkan registry) and the plain
// Go types its queries return.

// Structure types we declare ourselves (values from the Vulkan registry).
const (
	sTypeFeatures2        = 1000059000
	sTypeProperties2      = 1000059001
	sTypeMemProperties2   = 1000059006
	sTypeSubgroupProps    = 1000094000
	sTypePCIProps         = 1000212000
	sTypeBudgetProps      = 1000237000
	sTypeDriverProps      = 1000196000
	STypeFloat16Int8      = 1000082000
	sType16BitStorage     = 1000083000
	sType8BitStorage      = 1000177000
	sTypeMemoryModel      = 1000211000
	sTypeBFloat16Features = 1000141000
	sTypeIntDotFeatures   = 1000280000
	sTypeCoopMatFeatures  = 1000506000
	sTypeCoopMatProps     = 1000506001
	sTypeGroupProps       = 1000070000
	sTypeExtBufferInfo    = 1000071002
	sTypeExtBufferProps   = 1000071003
	sTypeExtMemBufferInfo = 1000072000
	sTypeImportHostInfo   = 1000178000
	sTypeHostPointerProps = 1000178001
	sTypeHostImportProps  = 1000178002
	sTypeAddressFeatures  = 1000257000
	sTypeAddressInfo      = 1000244001
	sTypeAllocFlagsInfo   = 1000060000
	sTypeSubgroupControl  = 1000225002
	sTypeExecFeatures     = 1000269000
	sTypePipelineInfo     = 1000269001
	sTypeExecProps        = 1000269002
	sTypeExecInfo         = 1000269003
	sTypeExecStat         = 1000269004
	sTypeExecRepr         = 1000269005
	// pipelineCapture is VK_PIPELINE_CREATE_CAPTURE_STATISTICS_BIT_KHR |
	// VK_PIPELINE_CREATE_CAPTURE_INTERNAL_REPRESENTATIONS_BIT_KHR.
	pipelineCapture = 0x40 | 0x80
	// stageRequireFullSubgroups is
	// VK_PIPELINE_SHADER_STAGE_CREATE_REQUIRE_FULL_SUBGROUPS_BIT.
	stageRequireFullSubgroups = 0x2
	// allocDeviceAddress is VK_MEMORY_ALLOCATE_DEVICE_ADDRESS_BIT.
	allocDeviceAddress = 0x2
	// usageDeviceAddress is VK_BUFFER_USAGE_SHADER_DEVICE_ADDRESS_BIT.
	usageDeviceAddress = 0x20000
	// handleHostAllocation is VK_EXTERNAL_MEMORY_HANDLE_TYPE_HOST_ALLOCATION_BIT_EXT.
	handleHostAllocation = 0x80
	// memoryImportable is VK_EXTERNAL_MEMORY_FEATURE_IMPORTABLE_BIT.
	memoryImportable = 0x4
)

// Core VkPhysicalDeviceFeatures members we enable, as indexes of VkBool32s.
const (
	coreShaderFloat64 = 39
	coreShaderInt64   = 40
	coreShaderInt16   = 41
)

// FeatureSet is what we query and enable beyond Vulkan 1.0 core.
type FeatureSet struct {
	Float64, Int64, Int16          bool
	Float16, Int8                  bool
	Storage16, Storage8            bool
	MemoryModel, MemoryModelDevice bool
	CoopMat                        bool
	BFloat16Type, BFloat16CoopMat  bool
	IntDot                         bool
	BufferAddress                  bool
	// SubgroupSizeControl and FullSubgroups are
	// VkPhysicalDeviceSubgroupSizeControlFeatures.
	SubgroupSizeControl, FullSubgroups bool
	// ExecutableInfo is VK_KHR_pipeline_executable_properties: what the
	// driver compiled a pipeline into (registers, spills, its own listing).
	ExecutableInfo bool
}

// extProps are the properties read through vkGetPhysicalDeviceProperties2.
type extProps struct {
	SubgroupSize           uint32
	PCI                    *PCIBusInfo
	DriverName, DriverInfo string
}

// Executable is one part of a compiled pipeline as the driver reports it
// (VK_KHR_pipeline_executable_properties): its statistics (e.g. register
// count, spills) and its text listings.
type Executable struct {
	Name, Description string
	SubgroupSize      uint32
	Stats             []executableStat
	Listings          map[string]string
}

// executableStat is one named statistic of an executable.
type executableStat struct {
	Name, Description string
	Value             string
}

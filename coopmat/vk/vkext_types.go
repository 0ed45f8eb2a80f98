package vk

// Structure types and flags of the Vulkan gap, from the Vulkan registry.
const (
	sTypeFeatures2            = 1000059000
	sTypeProperties2          = 1000059001
	sTypeMemProperties2       = 1000059006
	sTypeSubgroupProps        = 1000094000
	sTypePCIProps             = 1000212000
	sTypeBudgetProps          = 1000237000
	sTypeDriverProps          = 1000196000
	STypeFloat16Int8          = 1000082000
	sType16BitStorage         = 1000083000
	sType8BitStorage          = 1000177000
	sTypeMemoryModel          = 1000211000
	sTypeBFloat16Features     = 1000141000
	sTypeIntDotFeatures       = 1000280000
	sTypeCoopMatFeatures      = 1000506000
	sTypeCoopMatProps         = 1000506001
	sTypeGroupProps           = 1000070000
	sTypeExtBufferInfo        = 1000071002
	sTypeExtBufferProps       = 1000071003
	sTypeExtMemBufferInfo     = 1000072000
	sTypeImportHostInfo       = 1000178000
	sTypeHostPointerProps     = 1000178001
	sTypeHostImportProps      = 1000178002
	sTypeAddressFeatures      = 1000257000
	sTypeAddressInfo          = 1000244001
	sTypeAllocFlagsInfo       = 1000060000
	sTypeSubgroupControl      = 1000225002
	sTypeExecFeatures         = 1000269000
	sTypePipelineInfo         = 1000269001
	sTypeExecProps            = 1000269002
	sTypeExecInfo             = 1000269003
	sTypeExecStat             = 1000269004
	sTypeExecRepr             = 1000269005
	pipelineCapture           = 0x40 | 0x80 // capture statistics and internal representations
	stageRequireFullSubgroups = 0x2
	allocDeviceAddress        = 0x2
	usageDeviceAddress        = 0x20000
	handleHostAllocation      = 0x80
	memoryImportable          = 0x4
)

// Core VkPhysicalDeviceFeatures members we enable, as indexes of VkBool32s.
const (
	coreShaderFloat64 = 39
	coreShaderInt64   = 40
	coreShaderInt16   = 41
)

// FeatureSet is what we query and enable beyond Vulkan 1.0 core.
type FeatureSet struct {
	Float64, Int64, Int16              bool
	Float16, Int8                      bool
	Storage16, Storage8                bool
	MemoryModel, MemoryModelDevice     bool
	CoopMat                            bool
	BFloat16Type, BFloat16CoopMat      bool
	IntDot                             bool
	BufferAddress                      bool
	SubgroupSizeControl, FullSubgroups bool
	ExecutableInfo                     bool // pipelineExecutableInfo
}

// extProps are the properties read through vkGetPhysicalDeviceProperties2.
type extProps struct {
	SubgroupSize           uint32
	PCI                    *PCIBusInfo
	DriverName, DriverInfo string
}

// Executable is one part of a compiled pipeline as the driver reports it:
// its statistics (registers, spills, …) and text listings.
type Executable struct {
	Name, Description string
	SubgroupSize      uint32
	Stats             []executableStat
	Listings          map[string]string
}

type executableStat struct {
	Name, Description string
	Value             string
}

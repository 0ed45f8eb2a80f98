package vulkan

// The Vulkan gap: everything github.com/vulkan-go/vulkan (frozen at Vulkan
// 1.1.88) lacks lives in this one file. We dlopen libvulkan.so.1 ourselves
// (vulkan-go's default loader wants the libvulkan.so dev symlink), hand its
// vkGetInstanceProcAddr to vulkan-go, and declare the few structures we need
// ourselves rather than depending on new Vulkan headers: the *2 feature and
// property chains, VK_KHR_cooperative_matrix, VK_KHR_shader_bfloat16,
// VK_KHR_shader_integer_dot_product, VK_EXT_pci_bus_info,
// VK_EXT_memory_budget, the driver properties, the device groups, the
// import of host memory (VK_EXT_external_memory_host), buffer device
// addresses, subgroup size control and what the driver compiled a pipeline
// into (VK_KHR_pipeline_executable_properties). Callers check the extension
// list before any extension function is called.

/*
#cgo LDFLAGS: -ldl
#include <dlfcn.h>
#include <stdint.h>
#include <stdlib.h>

typedef void* (*cmPFNGetInstanceProcAddr)(void* instance, const char* name);
typedef void (*cmPFNPhysical2)(void* pd, void* out);
typedef int32_t (*cmPFNCoopProps)(void* pd, uint32_t* count, void* props);
typedef int32_t (*cmPFNGroups)(void* instance, uint32_t* count, void* props);

static void* cm_load(const char* name) {
	void* lib = dlopen(name, RTLD_NOW | RTLD_LOCAL);
	if (lib == NULL) return NULL;
	return dlsym(lib, "vkGetInstanceProcAddr");
}
static void* cm_proc(void* gipa, void* instance, const char* name) {
	return ((cmPFNGetInstanceProcAddr)gipa)(instance, name);
}
static void cm_phys2(void* fn, void* pd, void* out) { ((cmPFNPhysical2)fn)(pd, out); }
static int32_t cm_coop(void* fn, void* pd, uint32_t* n, void* p) { return ((cmPFNCoopProps)fn)(pd, n, p); }
static int32_t cm_groups(void* fn, void* inst, uint32_t* n, void* p) { return ((cmPFNGroups)fn)(inst, n, p); }

typedef struct { uint32_t sType; void* pNext; } cmHeader;
typedef struct { uint32_t sType; void* pNext; uint32_t core[64]; } cmFeatures2;
typedef struct { uint32_t sType; void* pNext; uint32_t v[4]; } cmBools;
typedef struct { uint32_t sType; void* pNext; uint64_t core[160]; } cmProperties2;
typedef struct { uint32_t sType; void* pNext; uint32_t subgroupSize, stages, ops, quad; } cmSubgroupProps;
typedef struct { uint32_t sType; void* pNext; uint32_t domain, bus, device, function; } cmPCIProps;
typedef struct { uint32_t sType; void* pNext; uint32_t driverID; char name[256]; char info[256]; uint8_t conf[4]; } cmDriverProps;
typedef struct { uint32_t sType; void* pNext; uint64_t core[80]; } cmMemProps2;
typedef struct { uint32_t sType; void* pNext; uint64_t budget[16]; uint64_t usage[16]; } cmBudgetProps;
typedef struct {
	uint32_t sType; void* pNext;
	uint32_t M, N, K;
	int32_t A, B, C, R;
	uint32_t saturating;
	int32_t scope;
} cmCoopMatProps;
typedef struct { uint32_t sType; void* pNext; uint32_t count; void* devices[32]; uint32_t subsetAllocation; } cmGroupProps;

typedef void (*cmPFNExtBuffer)(void* pd, void* info, void* props);
typedef void* (*cmPFNGetDeviceProcAddr)(void* device, const char* name);
typedef int32_t (*cmPFNHostPointer)(void* device, uint32_t handleType, void* ptr, void* props);
static void cm_ext_buffer(void* fn, void* pd, void* info, void* p) { ((cmPFNExtBuffer)fn)(pd, info, p); }
static void* cm_dproc(void* gdpa, void* dev, const char* name) { return ((cmPFNGetDeviceProcAddr)gdpa)(dev, name); }
static int32_t cm_host_ptr(void* fn, void* dev, uint32_t t, void* ptr, void* p) { return ((cmPFNHostPointer)fn)(dev, t, ptr, p); }
typedef struct { uint32_t sType; void* pNext; uint64_t minAlign; } cmHostImportProps;
typedef struct { uint32_t sType; void* pNext; uint32_t flags, usage, handleType; } cmExtBufferInfo;
typedef struct { uint32_t sType; void* pNext; uint32_t features, exportFrom, compatible; } cmExtBufferProps;
typedef struct { uint32_t sType; void* pNext; uint32_t memoryTypeBits; } cmHostPointerProps;
typedef struct { uint32_t sType; void* pNext; uint32_t handleTypes; } cmExtMemBufferInfo;
typedef struct { uint32_t sType; void* pNext; uint32_t handleType; void* hostPointer; } cmImportHostInfo;

typedef uint64_t (*cmPFNBufferAddress)(void* dev, void* info);
static uint64_t cm_buffer_address(void* fn, void* dev, void* info) { return ((cmPFNBufferAddress)fn)(dev, info); }
typedef struct { uint32_t sType; void* pNext; void* buffer; } cmBufferAddressInfo;
typedef struct { uint32_t sType; void* pNext; uint32_t flags, deviceMask; } cmAllocFlagsInfo;

typedef int32_t (*cmPFNExecProps)(void* dev, void* info, uint32_t* n, void* out);
static int32_t cm_exec(void* fn, void* dev, void* info, uint32_t* n, void* out) { return ((cmPFNExecProps)fn)(dev, info, n, out); }
typedef struct { uint32_t sType; void* pNext; void* pipeline; } cmPipelineInfo;
typedef struct { uint32_t sType; void* pNext; void* pipeline; uint32_t index; } cmExecInfo;
typedef struct { uint32_t sType; void* pNext; uint32_t stages; char name[256]; char description[256]; uint32_t subgroupSize; } cmExecProps;
typedef struct { uint32_t sType; void* pNext; char name[256]; char description[256]; int32_t format; union { uint32_t b32; int64_t i64; uint64_t u64; double f64; } value; } cmExecStat;
typedef struct { uint32_t sType; void* pNext; char name[256]; char description[256]; uint32_t isText; size_t dataSize; void* pData; } cmExecRepr;

// cm_link chains the non-NULL structures after head, in order.
static void cm_link(void* head, void** next, int n) {
	cmHeader* h = (cmHeader*)head;
	for (int i = 0; i < n; i++) {
		if (next[i] == NULL) continue;
		h->pNext = next[i];
		h = (cmHeader*)next[i];
	}
	h->pNext = NULL;
}
*/
import "C"

import (
	"errors"
	"fmt"
	"sync"
	"unsafe"

	vk "github.com/vulkan-go/vulkan"
)

// Structure types we declare ourselves (values from the Vulkan registry).
const (
	sTypeFeatures2        = 1000059000
	sTypeProperties2      = 1000059001
	sTypeMemProperties2   = 1000059006
	sTypeSubgroupProps    = 1000094000
	sTypePCIProps         = 1000212000
	sTypeBudgetProps      = 1000237000
	sTypeDriverProps      = 1000196000
	sTypeFloat16Int8      = 1000082000
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

// loader holds the process-wide loader state. The Vulkan loader and
// vulkan-go's function table are process-wide by nature; this is the one
// package-level variable, set once.
var loader = sync.OnceValues(func() (unsafe.Pointer, error) {
	name := C.CString("libvulkan.so.1")
	defer C.free(unsafe.Pointer(name))
	gipa := C.cm_load(name)
	if gipa == nil {
		return nil, fmt.Errorf("vulkan: dlopen libvulkan.so.1: %w", ErrNoVulkan)
	}
	vk.SetGetInstanceProcAddr(unsafe.Pointer(gipa))
	if err := vk.Init(); err != nil {
		return nil, fmt.Errorf("vulkan: init: %w: %w", ErrNoVulkan, err)
	}
	return unsafe.Pointer(gipa), nil
})

// ext holds the instance-level entry points vulkan-go lacks.
type ext struct {
	features2, properties2, memProperties2, coopProps, groups unsafe.Pointer
	externalBuffer, deviceProcAddr                            unsafe.Pointer
}

func procAddr(gipa unsafe.Pointer, inst vk.Instance, name string) unsafe.Pointer {
	cs := C.CString(name)
	defer C.free(unsafe.Pointer(cs))
	return unsafe.Pointer(C.cm_proc(gipa, unsafe.Pointer(inst), cs))
}

// deviceProc returns dev's entry point name, nil when it is not loaded.
func (e ext) deviceProc(dev vk.Device, name string) unsafe.Pointer {
	if e.deviceProcAddr == nil {
		return nil
	}
	cs := C.CString(name)
	defer C.free(unsafe.Pointer(cs))
	return unsafe.Pointer(C.cm_dproc(e.deviceProcAddr, unsafe.Pointer(dev), cs))
}

func loadExt(gipa unsafe.Pointer, inst vk.Instance) (ext, error) {
	e := ext{
		features2:      procAddr(gipa, inst, "vkGetPhysicalDeviceFeatures2"),
		properties2:    procAddr(gipa, inst, "vkGetPhysicalDeviceProperties2"),
		memProperties2: procAddr(gipa, inst, "vkGetPhysicalDeviceMemoryProperties2"),
		coopProps:      procAddr(gipa, inst, "vkGetPhysicalDeviceCooperativeMatrixPropertiesKHR"),
		groups:         procAddr(gipa, inst, "vkEnumeratePhysicalDeviceGroups"),
		externalBuffer: procAddr(gipa, inst, "vkGetPhysicalDeviceExternalBufferProperties"),
		deviceProcAddr: procAddr(gipa, inst, "vkGetDeviceProcAddr"),
	}
	if e.features2 == nil || e.properties2 == nil || e.memProperties2 == nil {
		return e, errors.New("vulkan: vkGetPhysicalDevice*2 missing: a Vulkan 1.1 loader is required")
	}
	return e, nil
}

// featureSet is what we query and enable beyond Vulkan 1.0 core.
type featureSet struct {
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

// featureChain is a C-allocated VkPhysicalDeviceFeatures2 chain.
type featureChain struct {
	f2                             *C.cmFeatures2
	f16i8, s16, s8, mm, bf16, coop *C.cmBools
	dot, addr, sub, exec           *C.cmBools
	mem                            []unsafe.Pointer
}

func newBools(sType uint32, want bool, c *featureChain) *C.cmBools {
	if !want {
		return nil
	}
	p := (*C.cmBools)(C.calloc(1, C.size_t(unsafe.Sizeof(C.cmBools{}))))
	p.sType = C.uint32_t(sType)
	c.mem = append(c.mem, unsafe.Pointer(p))
	return p
}

// newFeatureChain allocates the chain for the structures the device knows
// (has is keyed by structure type).
func newFeatureChain(has map[uint32]bool) *featureChain {
	c := &featureChain{}
	c.f2 = (*C.cmFeatures2)(C.calloc(1, C.size_t(unsafe.Sizeof(C.cmFeatures2{}))))
	c.f2.sType = sTypeFeatures2
	c.mem = append(c.mem, unsafe.Pointer(c.f2))
	c.f16i8 = newBools(sTypeFloat16Int8, has[sTypeFloat16Int8], c)
	c.s16 = newBools(sType16BitStorage, has[sType16BitStorage], c)
	c.s8 = newBools(sType8BitStorage, has[sType8BitStorage], c)
	c.mm = newBools(sTypeMemoryModel, has[sTypeMemoryModel], c)
	c.bf16 = newBools(sTypeBFloat16Features, has[sTypeBFloat16Features], c)
	c.coop = newBools(sTypeCoopMatFeatures, has[sTypeCoopMatFeatures], c)
	c.dot = newBools(sTypeIntDotFeatures, has[sTypeIntDotFeatures], c)
	c.addr = newBools(sTypeAddressFeatures, has[sTypeAddressFeatures], c)
	c.sub = newBools(sTypeSubgroupControl, has[sTypeSubgroupControl], c)
	c.exec = newBools(sTypeExecFeatures, has[sTypeExecFeatures], c)
	link(unsafe.Pointer(c.f2), []unsafe.Pointer{unsafe.Pointer(c.f16i8), unsafe.Pointer(c.s16), unsafe.Pointer(c.s8),
		unsafe.Pointer(c.mm), unsafe.Pointer(c.bf16), unsafe.Pointer(c.coop), unsafe.Pointer(c.dot), unsafe.Pointer(c.addr),
		unsafe.Pointer(c.sub), unsafe.Pointer(c.exec)})
	return c
}

func (c *featureChain) free() {
	for _, p := range c.mem {
		C.free(p)
	}
	c.mem = nil
}

func boolAt(p *C.cmBools, i int) bool { return p != nil && p.v[i] != 0 }

func setFlag(p *C.cmBools, i int, on bool) {
	if p != nil {
		p.v[i] = 0
		if on {
			p.v[i] = 1
		}
	}
}

// read returns the supported features after vkGetPhysicalDeviceFeatures2.
func (c *featureChain) read() featureSet {
	return featureSet{
		Float64: c.f2.core[coreShaderFloat64] != 0, Int64: c.f2.core[coreShaderInt64] != 0,
		Int16:   c.f2.core[coreShaderInt16] != 0,
		Float16: boolAt(c.f16i8, 0), Int8: boolAt(c.f16i8, 1),
		Storage16: boolAt(c.s16, 0), Storage8: boolAt(c.s8, 0),
		MemoryModel: boolAt(c.mm, 0), MemoryModelDevice: boolAt(c.mm, 1),
		BFloat16Type: boolAt(c.bf16, 0), BFloat16CoopMat: boolAt(c.bf16, 2),
		CoopMat: boolAt(c.coop, 0), IntDot: boolAt(c.dot, 0),
		BufferAddress:       boolAt(c.addr, 0),
		SubgroupSizeControl: boolAt(c.sub, 0), FullSubgroups: boolAt(c.sub, 1),
		ExecutableInfo: boolAt(c.exec, 0),
	}
}

// write clears the chain and sets exactly the features in f, so that device
// creation enables nothing else (robustness features cost speed).
func (c *featureChain) write(f featureSet) {
	for i := range c.f2.core {
		c.f2.core[i] = 0
	}
	b := func(v bool) C.uint32_t {
		if v {
			return 1
		}
		return 0
	}
	c.f2.core[coreShaderFloat64], c.f2.core[coreShaderInt64], c.f2.core[coreShaderInt16] = b(f.Float64), b(f.Int64), b(f.Int16)
	for _, p := range []*C.cmBools{c.f16i8, c.s16, c.s8, c.mm, c.bf16, c.coop, c.dot, c.addr, c.sub, c.exec} {
		for i := 0; p != nil && i < 4; i++ {
			p.v[i] = 0
		}
	}
	setFlag(c.f16i8, 0, f.Float16)
	setFlag(c.f16i8, 1, f.Int8)
	setFlag(c.s16, 0, f.Storage16)
	setFlag(c.s8, 0, f.Storage8)
	setFlag(c.mm, 0, f.MemoryModel)
	setFlag(c.mm, 1, f.MemoryModelDevice)
	setFlag(c.bf16, 0, f.BFloat16Type)
	setFlag(c.bf16, 2, f.BFloat16CoopMat)
	setFlag(c.coop, 0, f.CoopMat)
	setFlag(c.dot, 0, f.IntDot)
	setFlag(c.addr, 0, f.BufferAddress)
	setFlag(c.sub, 0, f.SubgroupSizeControl)
	setFlag(c.sub, 1, f.FullSubgroups)
	setFlag(c.exec, 0, f.ExecutableInfo)
}

func (e ext) queryFeatures(pd vk.PhysicalDevice, has map[uint32]bool) featureSet {
	c := newFeatureChain(has)
	defer c.free()
	C.cm_phys2(e.features2, unsafe.Pointer(pd), unsafe.Pointer(c.f2))
	return c.read()
}

// extProps are the properties read through vkGetPhysicalDeviceProperties2.
type extProps struct {
	SubgroupSize           uint32
	PCI                    *PCIBusInfo
	DriverName, DriverInfo string
}

func newC[T any]() *T { return (*T)(C.calloc(1, C.size_t(unsafe.Sizeof(*new(T))))) }

func (e ext) queryProperties(pd vk.PhysicalDevice, pci, driver bool) extProps {
	p2, sg := newC[C.cmProperties2](), newC[C.cmSubgroupProps]()
	defer C.free(unsafe.Pointer(p2))
	defer C.free(unsafe.Pointer(sg))
	p2.sType, sg.sType = sTypeProperties2, sTypeSubgroupProps
	next := []unsafe.Pointer{unsafe.Pointer(sg), nil, nil}
	var pc *C.cmPCIProps
	if pci {
		pc = newC[C.cmPCIProps]()
		defer C.free(unsafe.Pointer(pc))
		pc.sType, next[1] = sTypePCIProps, unsafe.Pointer(pc)
	}
	var dp *C.cmDriverProps
	if driver {
		dp = newC[C.cmDriverProps]()
		defer C.free(unsafe.Pointer(dp))
		dp.sType, next[2] = sTypeDriverProps, unsafe.Pointer(dp)
	}
	link(unsafe.Pointer(p2), next)
	C.cm_phys2(e.properties2, unsafe.Pointer(pd), unsafe.Pointer(p2))
	out := extProps{SubgroupSize: uint32(sg.subgroupSize)}
	if pc != nil {
		out.PCI = &PCIBusInfo{Domain: uint32(pc.domain), Bus: uint32(pc.bus), Device: uint32(pc.device), Function: uint32(pc.function)}
	}
	if dp != nil {
		out.DriverName = C.GoString(&dp.name[0])
		out.DriverInfo = C.GoString(&dp.info[0])
	}
	return out
}

// link chains C-allocated structures after head (nil entries skipped).
func link(head unsafe.Pointer, next []unsafe.Pointer) {
	n := len(next)
	arr := (*unsafe.Pointer)(C.calloc(C.size_t(max(n, 1)), C.size_t(unsafe.Sizeof(unsafe.Pointer(nil)))))
	defer C.free(unsafe.Pointer(arr))
	copy(unsafe.Slice(arr, n), next)
	C.cm_link(head, arr, C.int(n))
}

// queryBudget returns the per-heap budget and this process's usage in bytes
// (VK_EXT_memory_budget), read afresh on every call; the caller has checked
// that the extension is present.
func (e ext) queryBudget(pd vk.PhysicalDevice, heaps int) (budget, usage []uint64) {
	m2, b := newC[C.cmMemProps2](), newC[C.cmBudgetProps]()
	defer C.free(unsafe.Pointer(m2))
	defer C.free(unsafe.Pointer(b))
	m2.sType, b.sType = sTypeMemProperties2, sTypeBudgetProps
	link(unsafe.Pointer(m2), []unsafe.Pointer{unsafe.Pointer(b)})
	C.cm_phys2(e.memProperties2, unsafe.Pointer(pd), unsafe.Pointer(m2))
	budget, usage = make([]uint64, min(heaps, 16)), make([]uint64, min(heaps, 16))
	for i := range budget {
		budget[i], usage[i] = uint64(b.budget[i]), uint64(b.usage[i])
	}
	return budget, usage
}

// queryCoopMat calls vkGetPhysicalDeviceCooperativeMatrixPropertiesKHR; the
// caller has checked that VK_KHR_cooperative_matrix is present.
func (e ext) queryCoopMat(pd vk.PhysicalDevice) ([]Shape, error) {
	if e.coopProps == nil {
		return nil, fmt.Errorf("vulkan: vkGetPhysicalDeviceCooperativeMatrixPropertiesKHR not loaded: %w", ErrExtensionMissing)
	}
	count := newC[C.uint32_t]()
	defer C.free(unsafe.Pointer(count))
	if r := vk.Result(C.cm_coop(e.coopProps, unsafe.Pointer(pd), count, nil)); r != vk.Success {
		return nil, fmt.Errorf("vulkan: vkGetPhysicalDeviceCooperativeMatrixPropertiesKHR: %w", vk.Error(r))
	}
	n := int(*count)
	if n == 0 {
		return nil, nil
	}
	props := (*C.cmCoopMatProps)(C.calloc(C.size_t(n), C.size_t(unsafe.Sizeof(C.cmCoopMatProps{}))))
	defer C.free(unsafe.Pointer(props))
	ps := unsafe.Slice(props, n)
	for i := range ps {
		ps[i].sType = sTypeCoopMatProps
	}
	if r := vk.Result(C.cm_coop(e.coopProps, unsafe.Pointer(pd), count, unsafe.Pointer(props))); r != vk.Success && r != vk.Incomplete {
		return nil, fmt.Errorf("vulkan: vkGetPhysicalDeviceCooperativeMatrixPropertiesKHR: %w", vk.Error(r))
	}
	out := make([]Shape, 0, int(*count))
	for _, p := range ps[:int(*count)] {
		out = append(out, Shape{
			M: uint32(p.M), N: uint32(p.N), K: uint32(p.K),
			A: ComponentType(p.A), B: ComponentType(p.B), C: ComponentType(p.C), Result: ComponentType(p.R),
			Saturating: p.saturating != 0, Scope: Scope(p.scope),
		})
	}
	return out, nil
}

// queryGroups calls vkEnumeratePhysicalDeviceGroups (Vulkan 1.1 core) and
// returns each group's physical devices.
func (e ext) queryGroups(inst vk.Instance) ([][]vk.PhysicalDevice, error) {
	if e.groups == nil {
		return nil, errors.New("vulkan: vkEnumeratePhysicalDeviceGroups missing: a Vulkan 1.1 loader is required")
	}
	count := newC[C.uint32_t]()
	defer C.free(unsafe.Pointer(count))
	if r := vk.Result(C.cm_groups(e.groups, unsafe.Pointer(inst), count, nil)); r != vk.Success {
		return nil, fmt.Errorf("vulkan: vkEnumeratePhysicalDeviceGroups: %w", vk.Error(r))
	}
	n := int(*count)
	if n == 0 {
		return nil, nil
	}
	props := (*C.cmGroupProps)(C.calloc(C.size_t(n), C.size_t(unsafe.Sizeof(C.cmGroupProps{}))))
	defer C.free(unsafe.Pointer(props))
	ps := unsafe.Slice(props, n)
	for i := range ps {
		ps[i].sType = sTypeGroupProps
	}
	if r := vk.Result(C.cm_groups(e.groups, unsafe.Pointer(inst), count, unsafe.Pointer(props))); r != vk.Success && r != vk.Incomplete {
		return nil, fmt.Errorf("vulkan: vkEnumeratePhysicalDeviceGroups: %w", vk.Error(r))
	}
	out := make([][]vk.PhysicalDevice, 0, int(*count))
	for _, p := range ps[:int(*count)] {
		var g []vk.PhysicalDevice
		for _, d := range p.devices[:min(int(p.count), len(p.devices))] {
			g = append(g, vk.PhysicalDevice(d))
		}
		out = append(out, g)
	}
	return out, nil
}

// deviceChain is the feature chain passed as VkDeviceCreateInfo.pNext.
type deviceChain struct{ c *featureChain }

func newDeviceChain(has map[uint32]bool, want featureSet) deviceChain {
	c := newFeatureChain(has)
	c.write(want)
	return deviceChain{c}
}

func (d deviceChain) pointer() unsafe.Pointer { return unsafe.Pointer(d.c.f2) }
func (d deviceChain) free()                   { d.c.free() }

// queryHostImport returns minImportedHostPointerAlignment in bytes and
// whether a buffer with usage can import host allocations; the caller has
// checked that VK_EXT_external_memory_host is present.
func (e ext) queryHostImport(pd vk.PhysicalDevice, usage vk.BufferUsageFlagBits) (align uint64, importable bool) {
	p2, hp := newC[C.cmProperties2](), newC[C.cmHostImportProps]()
	defer C.free(unsafe.Pointer(p2))
	defer C.free(unsafe.Pointer(hp))
	p2.sType, hp.sType = sTypeProperties2, sTypeHostImportProps
	link(unsafe.Pointer(p2), []unsafe.Pointer{unsafe.Pointer(hp)})
	C.cm_phys2(e.properties2, unsafe.Pointer(pd), unsafe.Pointer(p2))
	if e.externalBuffer == nil {
		return uint64(hp.minAlign), false
	}
	info, props := newC[C.cmExtBufferInfo](), newC[C.cmExtBufferProps]()
	defer C.free(unsafe.Pointer(info))
	defer C.free(unsafe.Pointer(props))
	info.sType, info.usage, info.handleType = sTypeExtBufferInfo, C.uint32_t(usage), handleHostAllocation
	props.sType = sTypeExtBufferProps
	C.cm_ext_buffer(e.externalBuffer, unsafe.Pointer(pd), unsafe.Pointer(info), unsafe.Pointer(props))
	return uint64(hp.minAlign), props.features&memoryImportable != 0
}

// hostPointerTypes calls vkGetMemoryHostPointerPropertiesEXT and returns
// the memory types host memory at ptr may be imported as; the caller has
// enabled VK_EXT_external_memory_host on dev.
func (e ext) hostPointerTypes(dev vk.Device, ptr unsafe.Pointer) (uint32, error) {
	fn := e.deviceProc(dev, "vkGetMemoryHostPointerPropertiesEXT")
	if fn == nil {
		return 0, fmt.Errorf("vulkan: vkGetMemoryHostPointerPropertiesEXT not loaded: %w", ErrExtensionMissing)
	}
	p := newC[C.cmHostPointerProps]()
	defer C.free(unsafe.Pointer(p))
	p.sType = sTypeHostPointerProps
	if r := vk.Result(C.cm_host_ptr(fn, unsafe.Pointer(dev), handleHostAllocation, ptr, unsafe.Pointer(p))); r != vk.Success {
		return 0, fmt.Errorf("vulkan: vkGetMemoryHostPointerPropertiesEXT: %w", vk.Error(r))
	}
	return uint32(p.memoryTypeBits), nil
}

// importChains returns, in C memory, the VkExternalMemoryBufferCreateInfo
// to chain to vkCreateBuffer and the VkImportMemoryHostPointerInfoEXT of
// ptr to chain to vkAllocateMemory (host allocations both); free frees them.
func importChains(ptr unsafe.Pointer) (buffer, memory unsafe.Pointer, free func()) {
	b, m := newC[C.cmExtMemBufferInfo](), newC[C.cmImportHostInfo]()
	b.sType, b.handleTypes = sTypeExtMemBufferInfo, handleHostAllocation
	m.sType, m.handleType, m.hostPointer = sTypeImportHostInfo, handleHostAllocation, ptr
	return unsafe.Pointer(b), unsafe.Pointer(m), func() { C.free(unsafe.Pointer(b)); C.free(unsafe.Pointer(m)) }
}

// addressFunc returns vkGetBufferDeviceAddress (core in Vulkan 1.2) or its
// KHR alias for dev, nil when neither is loaded.
func (e ext) addressFunc(dev vk.Device) unsafe.Pointer {
	if fn := e.deviceProc(dev, "vkGetBufferDeviceAddress"); fn != nil {
		return fn
	}
	return e.deviceProc(dev, "vkGetBufferDeviceAddressKHR")
}

// bufferAddress calls fn (from addressFunc) for buf, which was created with
// usageDeviceAddress.
func bufferAddress(fn unsafe.Pointer, dev vk.Device, buf vk.Buffer) uint64 {
	info := newC[C.cmBufferAddressInfo]()
	defer C.free(unsafe.Pointer(info))
	info.sType, info.buffer = sTypeAddressInfo, unsafe.Pointer(buf)
	return uint64(C.cm_buffer_address(fn, unsafe.Pointer(dev), unsafe.Pointer(info)))
}

// addressAllocInfo returns, in C memory, the VkMemoryAllocateFlagsInfo that
// lets memory back a buffer with a device address; free it with C.free
// through the returned func.
func addressAllocInfo() (unsafe.Pointer, func()) {
	p := newC[C.cmAllocFlagsInfo]()
	p.sType, p.flags = sTypeAllocFlagsInfo, allocDeviceAddress
	return unsafe.Pointer(p), func() { C.free(unsafe.Pointer(p)) }
}

// executable is one part of a compiled pipeline as the driver reports it
// (VK_KHR_pipeline_executable_properties): its statistics (e.g. register
// count, spills) and its text listings.
type executable struct {
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

// executables returns what the driver compiled pipeline into; the pipeline
// was created with pipelineCapture on a device with ExecutableInfo enabled.
func (e ext) executables(dev vk.Device, pipeline vk.Pipeline) ([]executable, error) {
	props, stats := e.deviceProc(dev, "vkGetPipelineExecutablePropertiesKHR"), e.deviceProc(dev, "vkGetPipelineExecutableStatisticsKHR")
	reprs := e.deviceProc(dev, "vkGetPipelineExecutableInternalRepresentationsKHR")
	if props == nil || stats == nil || reprs == nil {
		return nil, fmt.Errorf("vulkan: VK_KHR_pipeline_executable_properties not loaded: %w", ErrExtensionMissing)
	}
	pi := newC[C.cmPipelineInfo]()
	defer C.free(unsafe.Pointer(pi))
	pi.sType, pi.pipeline = sTypePipelineInfo, unsafe.Pointer(pipeline)
	var n C.uint32_t
	if r := vk.Result(C.cm_exec(props, unsafe.Pointer(dev), unsafe.Pointer(pi), &n, nil)); r != vk.Success {
		return nil, fmt.Errorf("vulkan: vkGetPipelineExecutablePropertiesKHR: %w", vk.Error(r))
	}
	ps := cArray[C.cmExecProps](int(n))
	defer C.free(unsafe.Pointer(&ps[0]))
	for i := range ps {
		ps[i].sType = sTypeExecProps
	}
	if r := vk.Result(C.cm_exec(props, unsafe.Pointer(dev), unsafe.Pointer(pi), &n, unsafe.Pointer(&ps[0]))); r != vk.Success {
		return nil, fmt.Errorf("vulkan: vkGetPipelineExecutablePropertiesKHR: %w", vk.Error(r))
	}
	out := make([]executable, 0, int(n))
	for i := range int(n) {
		x := executable{Name: C.GoString(&ps[i].name[0]), Description: C.GoString(&ps[i].description[0]),
			SubgroupSize: uint32(ps[i].subgroupSize), Listings: map[string]string{}}
		ei := newC[C.cmExecInfo]()
		ei.sType, ei.pipeline, ei.index = sTypeExecInfo, unsafe.Pointer(pipeline), C.uint32_t(i)
		x.Stats = executableStats(stats, dev, ei)
		executableListings(reprs, dev, ei, x.Listings)
		C.free(unsafe.Pointer(ei))
		out = append(out, x)
	}
	return out, nil
}

func executableStats(fn unsafe.Pointer, dev vk.Device, ei *C.cmExecInfo) []executableStat {
	var n C.uint32_t
	if C.cm_exec(fn, unsafe.Pointer(dev), unsafe.Pointer(ei), &n, nil) != 0 || n == 0 {
		return nil
	}
	st := cArray[C.cmExecStat](int(n))
	defer C.free(unsafe.Pointer(&st[0]))
	for i := range st {
		st[i].sType = sTypeExecStat
	}
	if C.cm_exec(fn, unsafe.Pointer(dev), unsafe.Pointer(ei), &n, unsafe.Pointer(&st[0])) != 0 {
		return nil
	}
	out := make([]executableStat, 0, int(n))
	for i := range int(n) {
		s := &st[i]
		v := unsafe.Pointer(&s.value)
		var val string
		switch s.format { // VkPipelineExecutableStatisticFormatKHR
		case 0:
			val = fmt.Sprint(*(*uint32)(v) != 0)
		case 1:
			val = fmt.Sprint(*(*int64)(v))
		case 2:
			val = fmt.Sprint(*(*uint64)(v))
		default:
			val = fmt.Sprint(*(*float64)(v))
		}
		out = append(out, executableStat{Name: C.GoString(&s.name[0]), Description: C.GoString(&s.description[0]), Value: val})
	}
	return out
}

// executableListings adds the executable's text representations to into.
func executableListings(fn unsafe.Pointer, dev vk.Device, ei *C.cmExecInfo, into map[string]string) {
	var n C.uint32_t
	if C.cm_exec(fn, unsafe.Pointer(dev), unsafe.Pointer(ei), &n, nil) != 0 || n == 0 {
		return
	}
	rs := cArray[C.cmExecRepr](int(n))
	defer C.free(unsafe.Pointer(&rs[0]))
	for i := range rs {
		rs[i].sType = sTypeExecRepr
	}
	// The first call with the array fills in each listing's size, the
	// second its text; VK_INCOMPLETE (5) still fills what fits.
	if r := C.cm_exec(fn, unsafe.Pointer(dev), unsafe.Pointer(ei), &n, unsafe.Pointer(&rs[0])); r != 0 && r != 5 {
		return
	}
	for i := range int(n) {
		if rs[i].isText == 0 || rs[i].dataSize == 0 {
			continue
		}
		rs[i].pData = C.calloc(1, rs[i].dataSize)
		defer C.free(rs[i].pData)
	}
	if r := C.cm_exec(fn, unsafe.Pointer(dev), unsafe.Pointer(ei), &n, unsafe.Pointer(&rs[0])); r != 0 && r != 5 {
		return
	}
	for i := range int(n) {
		if rs[i].pData != nil {
			into[C.GoString(&rs[i].name[0])] = C.GoStringN((*C.char)(rs[i].pData), C.int(rs[i].dataSize))
		}
	}
}

// cArray allocates n zeroed Ts in C memory (free it through &s[0]).
func cArray[T any](n int) []T {
	p := (*T)(C.calloc(C.size_t(max(n, 1)), C.size_t(unsafe.Sizeof(*new(T)))))
	return unsafe.Slice(p, max(n, 1))
}

package vk

// The Vulkan gap: what github.com/vulkan-go/vulkan (frozen at Vulkan 1.1.88)
// lacks, declared in vkext.h; only this file and vkext_device.go use cgo.
// Callers check the extension list before calling an extension function.

/*
#cgo LDFLAGS: -ldl
#include "vkext.h"
*/
import "C"

import (
	"errors"
	"fmt"
	"sync"
	"unsafe"

	vk "github.com/vulkan-go/vulkan"
)

// loader dlopens libvulkan.so.1 (vulkan-go's own loader wants the dev
// symlink libvulkan.so) once per process and hands it to vulkan-go.
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

// instanceInit serialises vk.InitInstance, which rewrites vulkan-go's
// process-wide function table.
var instanceInit sync.Mutex

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

// newFeatureChain allocates the structures has (keyed by sType) marks known.
func newFeatureChain(has map[uint32]bool) *featureChain {
	c := &featureChain{}
	c.f2 = (*C.cmFeatures2)(C.calloc(1, C.size_t(unsafe.Sizeof(C.cmFeatures2{}))))
	c.f2.sType = sTypeFeatures2
	c.mem = append(c.mem, unsafe.Pointer(c.f2))
	c.f16i8 = newBools(STypeFloat16Int8, has[STypeFloat16Int8], c)
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
func (c *featureChain) read() FeatureSet {
	return FeatureSet{
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

// write sets exactly the features in f: robustness features cost speed.
func (c *featureChain) write(f FeatureSet) {
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

func (e ext) queryFeatures(pd vk.PhysicalDevice, has map[uint32]bool) FeatureSet {
	c := newFeatureChain(has)
	defer c.free()
	C.cm_phys2(e.features2, unsafe.Pointer(pd), unsafe.Pointer(c.f2))
	return c.read()
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

// queryBudget reads each heap's budget and usage in bytes afresh; the caller
// has checked for VK_EXT_memory_budget.
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

// queryCoopMat lists the shapes; the caller has checked for VK_KHR_cooperative_matrix.
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

// queryGroups returns each device group's physical devices.
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

func newDeviceChain(has map[uint32]bool, want FeatureSet) deviceChain {
	c := newFeatureChain(has)
	c.write(want)
	return deviceChain{c}
}

func (d deviceChain) pointer() unsafe.Pointer { return unsafe.Pointer(d.c.f2) }
func (d deviceChain) free()                   { d.c.free() }

// cArray allocates n zeroed Ts in C memory (free it through &s[0]).
func cArray[T any](n int) []T {
	p := (*T)(C.calloc(C.size_t(max(n, 1)), C.size_t(unsafe.Sizeof(*new(T)))))
	return unsafe.Slice(p, max(n, 1))
}

package vk

// The device-level half of the Vulkan gap (see vkext.go).

/*
#include "vkext.h"
*/
import "C"

import (
	"fmt"
	"unsafe"

	vk "github.com/vulkan-go/vulkan"
)

// queryHostImport returns minImportedHostPointerAlignment in bytes and whether
// a buffer with usage can import host memory.
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

// hostPointerTypes returns the memory types ptr may be imported as; dev has
// VK_EXT_external_memory_host enabled.
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

// importChains returns the C structures that import ptr, to chain to
// vkCreateBuffer and vkAllocateMemory; free frees them.
func importChains(ptr unsafe.Pointer) (buffer, memory unsafe.Pointer, free func()) {
	b, m := newC[C.cmExtMemBufferInfo](), newC[C.cmImportHostInfo]()
	b.sType, b.handleTypes = sTypeExtMemBufferInfo, handleHostAllocation
	m.sType, m.handleType, m.hostPointer = sTypeImportHostInfo, handleHostAllocation, ptr
	return unsafe.Pointer(b), unsafe.Pointer(m), func() { C.free(unsafe.Pointer(b)); C.free(unsafe.Pointer(m)) }
}

// addressFunc returns vkGetBufferDeviceAddress or its KHR alias; nil when neither is loaded.
func (e ext) addressFunc(dev vk.Device) unsafe.Pointer {
	if fn := e.deviceProc(dev, "vkGetBufferDeviceAddress"); fn != nil {
		return fn
	}
	return e.deviceProc(dev, "vkGetBufferDeviceAddressKHR")
}

// submit calls vkQueueSubmit (fn) for one command buffer and fence.
func submit(fn unsafe.Pointer, q vk.Queue, cb vk.CommandBuffer, fence vk.Fence) vk.Result {
	return vk.Result(C.cm_submit(fn, unsafe.Pointer(q), unsafe.Pointer(cb), unsafe.Pointer(fence)))
}

// bufferAddress returns the device address of buf, made with usageDeviceAddress.
func bufferAddress(fn unsafe.Pointer, dev vk.Device, buf vk.Buffer) uint64 {
	info := newC[C.cmBufferAddressInfo]()
	defer C.free(unsafe.Pointer(info))
	info.sType, info.buffer = sTypeAddressInfo, unsafe.Pointer(buf)
	return uint64(C.cm_buffer_address(fn, unsafe.Pointer(dev), unsafe.Pointer(info)))
}

// addressAllocInfo returns the C allocation chain for a device address, and its free.
func addressAllocInfo() (unsafe.Pointer, func()) {
	p := newC[C.cmAllocFlagsInfo]()
	p.sType, p.flags = sTypeAllocFlagsInfo, allocDeviceAddress
	return unsafe.Pointer(p), func() { C.free(unsafe.Pointer(p)) }
}

// Executables returns what the driver compiled a Capture pipeline into.
func (e ext) Executables(dev vk.Device, pipeline vk.Pipeline) ([]Executable, error) {
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
	out := make([]Executable, 0, int(n))
	for i := range int(n) {
		x := Executable{Name: C.GoString(&ps[i].name[0]), Description: C.GoString(&ps[i].description[0]),
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
	// The first call sizes each listing, the second fills it; VK_INCOMPLETE (5) is fine.
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

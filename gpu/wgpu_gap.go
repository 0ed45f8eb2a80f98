package gpu

// The calls the binding cannot make safely are made from C: creating the
// instance with every field set, and requesting the device with callbacks
// that record uncaptured errors and device loss in C memory instead of
// aborting. The results are wrapped in the binding's types, which must be
// bare C handles.

// #include "wgpu_gap.h"
import "C"

import (
	"errors"
	"fmt"
	"unsafe"

	"github.com/cogentcore/webgpu/wgpu"
)

// ErrDeviceLost is wrapped by errors caused by the device being lost.
var ErrDeviceLost = errors.New("gpu: device lost")

// errorSink is the C-side record of uncaptured errors and device loss.
type errorSink struct {
	c *C.appraiseSink
}

func newSink() *errorSink {
	return &errorSink{c: (*C.appraiseSink)(C.calloc(1, C.size_t(unsafe.Sizeof(C.appraiseSink{}))))}
}

// err reports device loss (wrapping ErrDeviceLost) or the first uncaptured
// error, or nil.
func (s *errorSink) err() error {
	if s == nil || s.c == nil {
		return nil
	}
	if s.c.lost != 0 {
		return fmt.Errorf("%w (reason %d): %s", ErrDeviceLost, s.c.lostReason, C.GoString(&s.c.lostMsg[0]))
	}
	if s.c.errors != 0 {
		return fmt.Errorf("webgpu: %d uncaptured error(s), the first of type %d: %s", s.c.errors, s.c.errorType, C.GoString(&s.c.errorMsg[0]))
	}
	return nil
}

// free releases the sink; call it only after the device is released.
func (s *errorSink) free() {
	if s == nil || s.c == nil {
		return
	}
	C.free(unsafe.Pointer(s.c))
	s.c = nil
}

// markLost records a device loss as the lost callback would, for tests.
func (s *errorSink) markLost(msg string) {
	cmsg := C.CString(msg)
	defer C.free(unsafe.Pointer(cmsg))
	C.appraiseOnLost(1, cmsg, unsafe.Pointer(s.c))
}

const handleSize = unsafe.Sizeof(uintptr(0))

// handlesOK reports whether the binding's Instance, Adapter and Device are
// still bare handles, as the casts here assume.
func handlesOK() bool {
	return unsafe.Sizeof(wgpu.Instance{}) == handleSize && unsafe.Sizeof(wgpu.Adapter{}) == handleSize &&
		unsafe.Sizeof(wgpu.Device{}) == handleSize
}

func createInstance(backends wgpu.InstanceBackend) (*wgpu.Instance, error) {
	if !handlesOK() {
		return nil, errors.New("gpu: the webgpu binding's types are no longer bare handles")
	}
	ref := C.appraiseCreateInstance(C.uint32_t(backends))
	if ref == nil {
		return nil, errors.New("webgpu: wgpuCreateInstance returned no instance")
	}
	handle := new(C.WGPUInstance)
	*handle = ref
	return (*wgpu.Instance)(unsafe.Pointer(handle)), nil
}

// requestDevice requests a device of a, its callbacks reporting into sink.
func requestDevice(a *wgpu.Adapter, features []wgpu.FeatureName, l wgpu.Limits, sink *errorSink) (*wgpu.Device, error) {
	if !handlesOK() {
		return nil, errors.New("gpu: the webgpu binding's types are no longer bare handles")
	}
	cf := make([]C.uint32_t, len(features)+1) // +1: never pass a nil array
	for i, f := range features {
		cf[i] = C.uint32_t(f)
	}
	limits := cLimits(l)
	adapter := *(*C.WGPUAdapter)(unsafe.Pointer(a))
	C.appraiseRequestDevice(adapter, &cf[0], C.size_t(len(features)), &limits, sink.c)
	if sink.c.status != 0 || sink.c.device == nil {
		return nil, fmt.Errorf("status %d: %s", sink.c.status, C.GoString(&sink.c.errorMsg[0]))
	}
	handle := new(C.WGPUDevice)
	*handle = sink.c.device
	return (*wgpu.Device)(unsafe.Pointer(handle)), nil
}

func cLimits(l wgpu.Limits) C.WGPULimits {
	return C.WGPULimits{
		maxTextureDimension1D:                     C.uint32_t(l.MaxTextureDimension1D),
		maxTextureDimension2D:                     C.uint32_t(l.MaxTextureDimension2D),
		maxTextureDimension3D:                     C.uint32_t(l.MaxTextureDimension3D),
		maxTextureArrayLayers:                     C.uint32_t(l.MaxTextureArrayLayers),
		maxBindGroups:                             C.uint32_t(l.MaxBindGroups),
		maxBindGroupsPlusVertexBuffers:            C.uint32_t(wgpu.LimitU32Undefined),
		maxBindingsPerBindGroup:                   C.uint32_t(l.MaxBindingsPerBindGroup),
		maxDynamicUniformBuffersPerPipelineLayout: C.uint32_t(l.MaxDynamicUniformBuffersPerPipelineLayout),
		maxDynamicStorageBuffersPerPipelineLayout: C.uint32_t(l.MaxDynamicStorageBuffersPerPipelineLayout),
		maxSampledTexturesPerShaderStage:          C.uint32_t(l.MaxSampledTexturesPerShaderStage),
		maxSamplersPerShaderStage:                 C.uint32_t(l.MaxSamplersPerShaderStage),
		maxStorageBuffersPerShaderStage:           C.uint32_t(l.MaxStorageBuffersPerShaderStage),
		maxStorageTexturesPerShaderStage:          C.uint32_t(l.MaxStorageTexturesPerShaderStage),
		maxUniformBuffersPerShaderStage:           C.uint32_t(l.MaxUniformBuffersPerShaderStage),
		maxUniformBufferBindingSize:               C.uint64_t(l.MaxUniformBufferBindingSize),
		maxStorageBufferBindingSize:               C.uint64_t(l.MaxStorageBufferBindingSize),
		minUniformBufferOffsetAlignment:           C.uint32_t(l.MinUniformBufferOffsetAlignment),
		minStorageBufferOffsetAlignment:           C.uint32_t(l.MinStorageBufferOffsetAlignment),
		maxVertexBuffers:                          C.uint32_t(l.MaxVertexBuffers),
		maxBufferSize:                             C.uint64_t(l.MaxBufferSize),
		maxVertexAttributes:                       C.uint32_t(l.MaxVertexAttributes),
		maxVertexBufferArrayStride:                C.uint32_t(l.MaxVertexBufferArrayStride),
		maxInterStageShaderComponents:             C.uint32_t(l.MaxInterStageShaderComponents),
		maxInterStageShaderVariables:              C.uint32_t(l.MaxInterStageShaderVariables),
		maxColorAttachments:                       C.uint32_t(l.MaxColorAttachments),
		maxColorAttachmentBytesPerSample:          C.uint32_t(l.MaxColorAttachmentBytesPerSample),
		maxComputeWorkgroupStorageSize:            C.uint32_t(l.MaxComputeWorkgroupStorageSize),
		maxComputeInvocationsPerWorkgroup:         C.uint32_t(l.MaxComputeInvocationsPerWorkgroup),
		maxComputeWorkgroupSizeX:                  C.uint32_t(l.MaxComputeWorkgroupSizeX),
		maxComputeWorkgroupSizeY:                  C.uint32_t(l.MaxComputeWorkgroupSizeY),
		maxComputeWorkgroupSizeZ:                  C.uint32_t(l.MaxComputeWorkgroupSizeZ),
		maxComputeWorkgroupsPerDimension:          C.uint32_t(l.MaxComputeWorkgroupsPerDimension),
	}
}

func deviceHandle(d *wgpu.Device) C.WGPUDevice {
	return *(*C.WGPUDevice)(unsafe.Pointer(d))
}

// provokeUncapturedError raises a validation error outside any error
// scope, for tests.
func (d *Device) provokeUncapturedError() {
	C.appraiseProvokeError(deviceHandle(d.dev))
}

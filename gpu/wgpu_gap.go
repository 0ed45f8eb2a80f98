package gpu

// The gap in the binding lives in this file and wgpu_scope.go, with
// their C side in wgpu_gap.h and wgpu_gap.c. cogentcore/webgpu v0.23.0's
// CreateInstance passes a malloc'd WGPUInstanceExtras whose flags, GLES
// version and DXC path it never sets (wgpu-native aborts on the garbage),
// so the instance is created here with every field set. Its
// Adapter.RequestDevice cannot report errors back: its DeviceLostCallback
// hands C a Go pointer to a Go pointer (cgocheck panics), it has no
// uncaptured-error callback (wgpu-native then aborts the process on any
// error outside an error scope, and on device loss), and it passes a
// malloc'd WGPURequiredLimitsExtras whose maxNonSamplerBindings it never
// sets. So the device is requested here, from C, with callbacks that write
// into a C-allocated sink the Go side reads after each wait; then it is
// wrapped in the binding's *wgpu.Device so everything else goes through the
// binding. The instance, adapter and device types of the binding are a
// single C handle each, which the casts here rely on (checked at run time).
// The declarations in wgpu_gap.h are copied from the binding's
// lib/webgpu.h and lib/wgpu.h (wgpu-native v22); TestRequestedLimitsArrive
// checks the layout by reading the limits back.

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

// newSink allocates a zeroed sink in C memory.
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

// free releases the sink. Call it only after the last reference to the
// device is released: wgpu-native drops the device, and with it the
// callbacks, then.
func (s *errorSink) free() {
	if s == nil || s.c == nil {
		return
	}
	C.free(unsafe.Pointer(s.c))
	s.c = nil
}

// markLost records a device loss as the lost callback would. Tests use it:
// wgpuDeviceDestroy does not lose the device in this wgpu-native.
func (s *errorSink) markLost(msg string) {
	cmsg := C.CString(msg)
	defer C.free(unsafe.Pointer(cmsg))
	C.appraiseOnLost(1, cmsg, unsafe.Pointer(s.c))
}

// The binding's Instance, Adapter and Device are a single C handle each;
// the casts below depend on that, and refuse to run if it changes.
const handleSize = unsafe.Sizeof(uintptr(0))

// handlesOK reports whether the binding's types still are bare handles.
func handlesOK() bool {
	return unsafe.Sizeof(wgpu.Instance{}) == handleSize && unsafe.Sizeof(wgpu.Adapter{}) == handleSize &&
		unsafe.Sizeof(wgpu.Device{}) == handleSize
}

// createInstance creates a WebGPU instance limited to backends.
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

// requestDevice requests a device of a with the given features and limits,
// its callbacks reporting into sink, and wraps it as a *wgpu.Device.
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

// cLimits converts the binding's limits to the C struct.
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

// deviceHandle is the C handle inside the binding's *wgpu.Device.
func deviceHandle(d *wgpu.Device) C.WGPUDevice {
	return *(*C.WGPUDevice)(unsafe.Pointer(d))
}

// provokeUncapturedError makes the device raise a validation error outside
// any error scope. For tests of the error path only.
func (d *Device) provokeUncapturedError() {
	C.appraiseProvokeError(deviceHandle(d.dev))
}

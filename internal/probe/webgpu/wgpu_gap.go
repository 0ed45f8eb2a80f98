package webgpu

// The gap in the binding lives in this file. cogentcore/webgpu v0.23.0's
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
// The declarations below are copied from the binding's lib/webgpu.h and
// lib/wgpu.h (wgpu-native v22); TestRequestedLimitsArrive checks the layout
// by reading the limits back.

/*
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct WGPUInstanceImpl* WGPUInstance;
typedef struct WGPUAdapterImpl* WGPUAdapter;
typedef struct WGPUDeviceImpl* WGPUDevice;

typedef struct WGPUChainedStruct {
    struct WGPUChainedStruct const * next;
    uint32_t sType;
} WGPUChainedStruct;

typedef struct WGPUInstanceDescriptor {
    WGPUChainedStruct const * nextInChain;
} WGPUInstanceDescriptor;

typedef struct WGPUInstanceExtras {
    WGPUChainedStruct chain;
    uint32_t backends;
    uint32_t flags;
    uint32_t dx12ShaderCompiler;
    uint32_t gles3MinorVersion;
    char const * dxilPath;
    char const * dxcPath;
} WGPUInstanceExtras;

extern WGPUInstance wgpuCreateInstance(WGPUInstanceDescriptor const * descriptor);

// appraiseCreateInstance creates an instance limited to backends, with
// every other extra at its default (zero).
static WGPUInstance appraiseCreateInstance(uint32_t backends) {
    WGPUInstanceExtras extras;
    memset(&extras, 0, sizeof extras);
    extras.chain.sType = 0x00030006; // WGPUSType_InstanceExtras
    extras.backends = backends;
    WGPUInstanceDescriptor desc;
    desc.nextInChain = &extras.chain;
    return wgpuCreateInstance(&desc);
}

typedef struct WGPULimits {
    uint32_t maxTextureDimension1D;
    uint32_t maxTextureDimension2D;
    uint32_t maxTextureDimension3D;
    uint32_t maxTextureArrayLayers;
    uint32_t maxBindGroups;
    uint32_t maxBindGroupsPlusVertexBuffers;
    uint32_t maxBindingsPerBindGroup;
    uint32_t maxDynamicUniformBuffersPerPipelineLayout;
    uint32_t maxDynamicStorageBuffersPerPipelineLayout;
    uint32_t maxSampledTexturesPerShaderStage;
    uint32_t maxSamplersPerShaderStage;
    uint32_t maxStorageBuffersPerShaderStage;
    uint32_t maxStorageTexturesPerShaderStage;
    uint32_t maxUniformBuffersPerShaderStage;
    uint64_t maxUniformBufferBindingSize;
    uint64_t maxStorageBufferBindingSize;
    uint32_t minUniformBufferOffsetAlignment;
    uint32_t minStorageBufferOffsetAlignment;
    uint32_t maxVertexBuffers;
    uint64_t maxBufferSize;
    uint32_t maxVertexAttributes;
    uint32_t maxVertexBufferArrayStride;
    uint32_t maxInterStageShaderComponents;
    uint32_t maxInterStageShaderVariables;
    uint32_t maxColorAttachments;
    uint32_t maxColorAttachmentBytesPerSample;
    uint32_t maxComputeWorkgroupStorageSize;
    uint32_t maxComputeInvocationsPerWorkgroup;
    uint32_t maxComputeWorkgroupSizeX;
    uint32_t maxComputeWorkgroupSizeY;
    uint32_t maxComputeWorkgroupSizeZ;
    uint32_t maxComputeWorkgroupsPerDimension;
} WGPULimits;

typedef struct WGPURequiredLimits {
    WGPUChainedStruct const * nextInChain;
    WGPULimits limits;
} WGPURequiredLimits;

typedef struct WGPUQueueDescriptor {
    WGPUChainedStruct const * nextInChain;
    char const * label;
} WGPUQueueDescriptor;

typedef void (*WGPUDeviceLostCallback)(uint32_t reason, char const * message, void * userdata);
typedef void (*WGPUErrorCallback)(uint32_t type, char const * message, void * userdata);

typedef struct WGPUUncapturedErrorCallbackInfo {
    WGPUChainedStruct const * nextInChain;
    WGPUErrorCallback callback;
    void * userdata;
} WGPUUncapturedErrorCallbackInfo;

typedef struct WGPUDeviceDescriptor {
    WGPUChainedStruct const * nextInChain;
    char const * label;
    size_t requiredFeatureCount;
    uint32_t const * requiredFeatures;
    WGPURequiredLimits const * requiredLimits;
    WGPUQueueDescriptor defaultQueue;
    WGPUDeviceLostCallback deviceLostCallback;
    void * deviceLostUserdata;
    WGPUUncapturedErrorCallbackInfo uncapturedErrorCallbackInfo;
} WGPUDeviceDescriptor;

typedef void (*WGPUAdapterRequestDeviceCallback)(uint32_t status, WGPUDevice device, char const * message, void * userdata);
extern void wgpuAdapterRequestDevice(WGPUAdapter adapter, WGPUDeviceDescriptor const * descriptor, WGPUAdapterRequestDeviceCallback callback, void * userdata);

typedef struct WGPUBufferImpl* WGPUBuffer;
typedef struct WGPUBufferDescriptor {
    WGPUChainedStruct const * nextInChain;
    char const * label;
    uint32_t usage;
    uint64_t size;
    uint32_t mappedAtCreation;
} WGPUBufferDescriptor;
extern WGPUBuffer wgpuDeviceCreateBuffer(WGPUDevice device, WGPUBufferDescriptor const * descriptor);
extern void wgpuBufferRelease(WGPUBuffer buffer);

enum { SINK_MSG = 512 };

// appraiseSink collects what wgpu-native reports through callbacks. They
// run on the thread that made the wgpu call, inside that call.
typedef struct appraiseSink {
    uint32_t errors;
    uint32_t errorType;
    char errorMsg[SINK_MSG];
    uint32_t lost;
    uint32_t lostReason;
    char lostMsg[SINK_MSG];
    uint32_t status;
    WGPUDevice device;
} appraiseSink;

static void appraiseCopy(char *dst, char const *src) {
    strncpy(dst, src ? src : "", SINK_MSG - 1);
    dst[SINK_MSG - 1] = 0;
}

static void appraiseOnError(uint32_t type, char const *msg, void *ud) {
    appraiseSink *s = ud;
    if (s->errors++ == 0) {
        s->errorType = type;
        appraiseCopy(s->errorMsg, msg);
    }
}

static void appraiseOnLost(uint32_t reason, char const *msg, void *ud) {
    appraiseSink *s = ud;
    if (!s->lost) {
        s->lost = 1;
        s->lostReason = reason;
        appraiseCopy(s->lostMsg, msg);
    }
}

static void appraiseOnDevice(uint32_t status, WGPUDevice device, char const *msg, void *ud) {
    appraiseSink *s = ud;
    s->status = status;
    s->device = device;
    if (status != 0) {
        appraiseCopy(s->errorMsg, msg);
    }
}

// appraiseRequestDevice requests a device with fully initialised limits and
// both callbacks pointing at sink; the result lands in sink->status/device.
static void appraiseRequestDevice(WGPUAdapter adapter, uint32_t const *features, size_t nfeatures,
                                  WGPULimits const *limits, appraiseSink *sink) {
    WGPURequiredLimits req;
    memset(&req, 0, sizeof req);
    req.limits = *limits;
    WGPUDeviceDescriptor desc;
    memset(&desc, 0, sizeof desc);
    desc.label = "appraise";
    desc.requiredFeatureCount = nfeatures;
    desc.requiredFeatures = features;
    desc.requiredLimits = &req;
    desc.deviceLostCallback = appraiseOnLost;
    desc.deviceLostUserdata = sink;
    desc.uncapturedErrorCallbackInfo.callback = appraiseOnError;
    desc.uncapturedErrorCallbackInfo.userdata = sink;
    sink->status = 0xffffffffu;
    wgpuAdapterRequestDevice(adapter, &desc, appraiseOnDevice, sink);
}
// appraiseProvokeError creates a buffer with a forbidden usage (MapRead with
// Storage) outside any error scope: an uncaptured validation error. Tests
// use it to prove such errors come back as errors.
static void appraiseProvokeError(WGPUDevice device) {
    WGPUBufferDescriptor desc;
    memset(&desc, 0, sizeof desc);
    desc.label = "provoked-error";
    desc.usage = 0x0001 | 0x0080;
    desc.size = 16;
    WGPUBuffer b = wgpuDeviceCreateBuffer(device, &desc);
    if (b) {
        wgpuBufferRelease(b);
    }
}

// appraiseScoped is what one pair of error scopes caught.
typedef struct appraiseScoped {
    uint32_t type;
    char msg[SINK_MSG];
} appraiseScoped;

static void appraiseOnScoped(uint32_t type, char const *msg, void *ud) {
    appraiseScoped *s = ud;
    if (type != 0 && s->type == 0) { // keep the first error (0: WGPUErrorType_NoError)
        s->type = type;
        appraiseCopy(s->msg, msg);
    }
}

extern void wgpuDevicePushErrorScope(WGPUDevice device, uint32_t filter);
extern void wgpuDevicePopErrorScope(WGPUDevice device, WGPUErrorCallback callback, void * userdata);

typedef struct WGPUQueueImpl* WGPUQueue;
typedef void (*WGPUBufferMapAsyncCallback)(uint32_t status, void * userdata);
extern void wgpuBufferMapAsync(WGPUBuffer buffer, uint32_t mode, size_t offset, size_t size, WGPUBufferMapAsyncCallback callback, void * userdata);
typedef void (*WGPUQueueOnSubmittedWorkDoneCallback)(uint32_t status, void * userdata);
extern void wgpuQueueOnSubmittedWorkDone(WGPUQueue queue, WGPUQueueOnSubmittedWorkDoneCallback callback, void * userdata);

// appraiseNotice records one callback wgpu-native makes later, from inside
// a poll on the polling thread: a buffer mapping's outcome or a queue's
// "submitted work done". It lives in C memory, so nothing the Go collector
// moves or frees is held by C between the request and the callback.
typedef struct appraiseNotice {
    uint32_t seen;
    uint32_t status;
} appraiseNotice;

static void appraiseOnNotice(uint32_t status, void *ud) {
    appraiseNotice *n = ud;
    n->status = status;
    n->seen = 1;
}

static void appraiseMapAsync(WGPUBuffer b, uint32_t mode, size_t offset, size_t size, appraiseNotice *n) {
    wgpuBufferMapAsync(b, mode, offset, size, appraiseOnNotice, n);
}

static void appraiseOnWorkDone(WGPUQueue q, appraiseNotice *n) {
    wgpuQueueOnSubmittedWorkDone(q, appraiseOnNotice, n);
}

// appraisePushScopes opens an out-of-memory and, inside it, a validation
// error scope (WGPUErrorFilter 1 and 0).
static void appraisePushScopes(WGPUDevice device) {
    wgpuDevicePushErrorScope(device, 1);
    wgpuDevicePushErrorScope(device, 0);
}

// appraisePopScopes closes both scopes; wgpu-native calls back at once.
static void appraisePopScopes(WGPUDevice device, appraiseScoped *s) {
    wgpuDevicePopErrorScope(device, appraiseOnScoped, s);
    wgpuDevicePopErrorScope(device, appraiseOnScoped, s);
}
*/
import "C"

import (
	"errors"
	"fmt"
	"reflect"
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

// ErrOutOfMemory is wrapped by errors that report the device (or the host,
// for host-visible memory) out of memory: a clean refusal, after which the
// device stays usable.
var ErrOutOfMemory = errors.New("gpu: out of memory")

// scoped runs f, whose WebGPU calls must be on d, inside an out-of-memory
// and a validation error scope, so that errors f causes come back here
// instead of through the uncaptured-error path (which would spoil the
// device for every later probe). It returns an error wrapping
// ErrOutOfMemory for an out-of-memory error, another error for any other
// error f caused, or nil. wgpu-native reports a scope's error at the pop,
// synchronously; the C record lives in C memory for that call.
func (d *Device) scoped(f func()) error {
	if err := d.alive(); err != nil {
		return err
	}
	rec := (*C.appraiseScoped)(C.calloc(1, C.size_t(unsafe.Sizeof(C.appraiseScoped{}))))
	defer C.free(unsafe.Pointer(rec))
	dev := deviceHandle(d.dev)
	C.appraisePushScopes(dev)
	f()
	C.appraisePopScopes(dev, rec)
	switch rec._type {
	case 0: // WGPUErrorType_NoError
		return nil
	case 2: // WGPUErrorType_OutOfMemory
		return fmt.Errorf("%w: %s", ErrOutOfMemory, C.GoString(&rec.msg[0]))
	default:
		return fmt.Errorf("webgpu: error of type %d: %s", rec._type, C.GoString(&rec.msg[0]))
	}
}

// notice is a callback wgpu-native will make from inside a later poll,
// recorded in C memory (appraiseNotice). Free it only once it was seen: an
// abandoned notice may still be written, so it is left allocated.
type notice struct {
	c *C.appraiseNotice
}

// newNotice allocates an unseen notice.
func newNotice() *notice {
	return &notice{c: (*C.appraiseNotice)(C.calloc(1, C.size_t(unsafe.Sizeof(C.appraiseNotice{}))))}
}

// seen reports whether the callback has run. Callbacks run inside
// wgpuDevicePoll on the polling thread, so no other thread writes it while
// this reads.
func (n *notice) seen() bool { return n.c.seen != 0 }

// status is the status the callback passed (0 is success for both kinds).
func (n *notice) status() uint32 { return uint32(n.c.status) }

// free releases a seen notice; an unseen one is left for C to write.
func (n *notice) free() {
	if n.c != nil && n.seen() {
		C.free(unsafe.Pointer(n.c))
		n.c = nil
	}
}

// refOf returns the C handle the binding keeps in the field "ref" of the
// struct *p of type T (wgpu.Buffer, wgpu.Queue: a device handle, then the
// object's own), after checking that the field is a bare handle.
func refOf[T any](p *T) (unsafe.Pointer, error) {
	f, ok := reflect.TypeFor[T]().FieldByName("ref")
	if !ok || f.Type.Size() != handleSize || f.Type.Kind() != reflect.Pointer {
		return nil, fmt.Errorf("gpu: the webgpu binding's %v no longer keeps its handle in a field ref", reflect.TypeFor[T]())
	}
	return *(*unsafe.Pointer)(unsafe.Add(unsafe.Pointer(p), f.Offset)), nil
}

// mapAsync asks for the first n bytes of b to be mapped in mode once the
// work that uses b is done, and returns the notice of the outcome. It
// replaces the binding's Buffer.MapAsync, which hands C a pointer into Go
// memory that C keeps past the call (the collector may free it before the
// callback reads it).
func (d *Device) mapAsync(b *wgpu.Buffer, mode wgpu.MapMode, n uint64) (*notice, error) {
	ref, err := refOf(b)
	if err != nil {
		return nil, err
	}
	nt := newNotice()
	if err := d.scoped(func() {
		C.appraiseMapAsync(C.WGPUBuffer(ref), C.uint32_t(mode), 0, C.size_t(n), nt.c)
	}); err != nil {
		nt.free()
		return nil, fmt.Errorf("webgpu: wgpuBufferMapAsync (%d bytes): %w", n, err)
	}
	return nt, nil
}

// workDone returns a notice that is seen once everything submitted to
// the queue so far has finished, as the device's fence reports it.
func (d *Device) workDone() (*notice, error) {
	ref, err := refOf(d.queue)
	if err != nil {
		return nil, err
	}
	nt := newNotice()
	C.appraiseOnWorkDone(C.WGPUQueue(ref), nt.c)
	return nt, nil
}

// provokeUncapturedError makes the device raise a validation error outside
// any error scope. For tests of the error path only.
func (d *Device) provokeUncapturedError() {
	C.appraiseProvokeError(deviceHandle(d.dev))
}

// Declarations of the wgpu-native calls the binding cannot make safely
// (wgpu_gap.go), copied from the binding's lib/webgpu.h and lib/wgpu.h
// (wgpu-native v22), and of the C side of appraise's own calls, defined in
// wgpu_gap.c.

#ifndef APPRAISE_WGPU_GAP_H
#define APPRAISE_WGPU_GAP_H

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

// appraiseScoped is what one pair of error scopes caught.
typedef struct appraiseScoped {
    uint32_t type;
    char msg[SINK_MSG];
} appraiseScoped;

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

// appraiseCreateInstance creates an instance limited to backends, with
// every other extra at its default (zero).
WGPUInstance appraiseCreateInstance(uint32_t backends);

// appraiseOnLost is the device-lost callback: it records the first loss
// in the appraiseSink ud.
void appraiseOnLost(uint32_t reason, char const *msg, void *ud);

// appraiseRequestDevice requests a device with fully initialised limits and
// both callbacks pointing at sink; the result lands in sink->status/device.
void appraiseRequestDevice(WGPUAdapter adapter, uint32_t const *features, size_t nfeatures,
                           WGPULimits const *limits, appraiseSink *sink);

// appraiseProvokeError creates a buffer with a forbidden usage (MapRead with
// Storage) outside any error scope: an uncaptured validation error. Tests
// use it to prove such errors come back as errors.
void appraiseProvokeError(WGPUDevice device);

// appraiseMapAsync asks for b to be mapped; n records the outcome.
void appraiseMapAsync(WGPUBuffer b, uint32_t mode, size_t offset, size_t size, appraiseNotice *n);

// appraiseOnWorkDone asks q to say when the work submitted so far is
// done; n records it.
void appraiseOnWorkDone(WGPUQueue q, appraiseNotice *n);

// appraisePushScopes opens an out-of-memory and, inside it, a validation
// error scope (WGPUErrorFilter 1 and 0).
void appraisePushScopes(WGPUDevice device);

// appraisePopScopes closes both scopes; wgpu-native calls back at once.
void appraisePopScopes(WGPUDevice device, appraiseScoped *s);

#endif

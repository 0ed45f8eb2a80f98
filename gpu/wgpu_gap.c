// The C side of wgpu_gap.go: callbacks that record into C memory what
// wgpu-native reports, and the calls that hand it those callbacks.

#include "wgpu_gap.h"

WGPUInstance appraiseCreateInstance(uint32_t backends) {
    WGPUInstanceExtras extras;
    memset(&extras, 0, sizeof extras);
    extras.chain.sType = 0x00030006; // WGPUSType_InstanceExtras
    extras.backends = backends;
    WGPUInstanceDescriptor desc;
    desc.nextInChain = &extras.chain;
    return wgpuCreateInstance(&desc);
}

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

void appraiseOnLost(uint32_t reason, char const *msg, void *ud) {
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

void appraiseRequestDevice(WGPUAdapter adapter, uint32_t const *features, size_t nfeatures,
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

void appraiseProvokeError(WGPUDevice device) {
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

static void appraiseOnScoped(uint32_t type, char const *msg, void *ud) {
    appraiseScoped *s = ud;
    if (type != 0 && s->type == 0) { // keep the first error (0: WGPUErrorType_NoError)
        s->type = type;
        appraiseCopy(s->msg, msg);
    }
}

static void appraiseOnNotice(uint32_t status, void *ud) {
    appraiseNotice *n = ud;
    n->status = status;
    n->seen = 1;
}

void appraiseMapAsync(WGPUBuffer b, uint32_t mode, size_t offset, size_t size, appraiseNotice *n) {
    wgpuBufferMapAsync(b, mode, offset, size, appraiseOnNotice, n);
}

void appraiseOnWorkDone(WGPUQueue q, appraiseNotice *n) {
    wgpuQueueOnSubmittedWorkDone(q, appraiseOnNotice, n);
}

void appraisePushScopes(WGPUDevice device) {
    wgpuDevicePushErrorScope(device, 1);
    wgpuDevicePushErrorScope(device, 0);
}

void appraisePopScopes(WGPUDevice device, appraiseScoped *s) {
    wgpuDevicePopErrorScope(device, appraiseOnScoped, s);
    wgpuDevicePopErrorScope(device, appraiseOnScoped, s);
}

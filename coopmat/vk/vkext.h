// vkext.h: the C side of vkext.go, the Vulkan gap: the few Vulkan
// structures and entry-point calls that github.com/vulkan-go/vulkan lacks,
// declared here rather than taken from new Vulkan headers. Included only by
// vkext.go's cgo preamble.
#ifndef APPRAISE_VKEXT_H
#define APPRAISE_VKEXT_H

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

typedef int32_t (*cmPFNQueueSubmit)(void* queue, uint32_t n, const void* submits, void* fence);
typedef struct {
	uint32_t sType; const void* pNext;
	uint32_t waitCount; const void* waits; const void* stages;
	uint32_t cbCount; const void* cbs;
	uint32_t signalCount; const void* signals;
} cmSubmitInfo;
// cm_submit submits one command buffer to queue, signalling fence.
static int32_t cm_submit(void* fn, void* queue, void* cb, void* fence) {
	cmSubmitInfo si = {4, NULL, 0, NULL, NULL, 1, &cb, 0, NULL};
	return ((cmPFNQueueSubmit)fn)(queue, 1, &si, fence);
}

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

#endif

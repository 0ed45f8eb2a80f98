//go:build linux && cgo

// The CUDA driver API loaded at run time: dlopen of libcuda.so.1 and dlsym
// of the entry points the peer probe uses (the _v2 names cuda.h maps to).
#include <dlfcn.h>
#include <stddef.h>
#include <string.h>

#include "cudadrv.h"

enum {
	fInit, fDeviceGetCount, fDeviceGet, fDeviceGetPCIBusId, fDeviceCanAccessPeer,
	fPrimaryCtxRetain, fPrimaryCtxRelease, fCtxSetCurrent, fCtxSynchronize,
	fCtxEnablePeerAccess, fCtxDisablePeerAccess, fMemAlloc, fMemFree,
	fMemcpyHtoD, fMemcpyDtoH, fMemsetD32, fMemcpyPeerAsync,
	fStreamCreate, fStreamDestroy, fEventCreate, fEventDestroy, fEventRecord,
	fEventSynchronize, fEventElapsedTime, fGetErrorName, fCount
};

static const char* cu_names[fCount] = {
	"cuInit", "cuDeviceGetCount", "cuDeviceGet", "cuDeviceGetPCIBusId", "cuDeviceCanAccessPeer",
	"cuDevicePrimaryCtxRetain", "cuDevicePrimaryCtxRelease_v2", "cuCtxSetCurrent", "cuCtxSynchronize",
	"cuCtxEnablePeerAccess", "cuCtxDisablePeerAccess", "cuMemAlloc_v2", "cuMemFree_v2",
	"cuMemcpyHtoD_v2", "cuMemcpyDtoH_v2", "cuMemsetD32_v2", "cuMemcpyPeerAsync",
	"cuStreamCreate", "cuStreamDestroy_v2", "cuEventCreate", "cuEventDestroy_v2", "cuEventRecord",
	"cuEventSynchronize", "cuEventElapsedTime", "cuGetErrorName",
};

static void* cu_fn[fCount];

// cu_load opens the library and resolves every entry point. It returns
// NULL, or a message: dlerror's, or the name of a missing entry point.
const char* peer_cu_load(void) {
	void* lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
	if (lib == NULL) {
		const char* e = dlerror();
		return e ? e : "dlopen failed";
	}
	for (int i = 0; i < fCount; i++) {
		cu_fn[i] = dlsym(lib, cu_names[i]);
		if (cu_fn[i] == NULL) return cu_names[i];
	}
	return NULL;
}

#define CU(f, T) ((T)cu_fn[f])
CUresult peer_cu_init(void) { return CU(fInit, CUresult (*)(unsigned))(0); }
CUresult peer_cu_count(int* n) { return CU(fDeviceGetCount, CUresult (*)(int*))(n); }
CUresult peer_cu_device(CUdevice* d, int i) { return CU(fDeviceGet, CUresult (*)(CUdevice*, int))(d, i); }
CUresult peer_cu_busid(char* s, int n, CUdevice d) { return CU(fDeviceGetPCIBusId, CUresult (*)(char*, int, CUdevice))(s, n, d); }
CUresult peer_cu_can(int* ok, CUdevice a, CUdevice b) { return CU(fDeviceCanAccessPeer, CUresult (*)(int*, CUdevice, CUdevice))(ok, a, b); }
CUresult peer_cu_retain(CUcontext* c, CUdevice d) { return CU(fPrimaryCtxRetain, CUresult (*)(CUcontext*, CUdevice))(c, d); }
CUresult peer_cu_release(CUdevice d) { return CU(fPrimaryCtxRelease, CUresult (*)(CUdevice))(d); }
CUresult peer_cu_current(CUcontext c) { return CU(fCtxSetCurrent, CUresult (*)(CUcontext))(c); }
CUresult peer_cu_sync(void) { return CU(fCtxSynchronize, CUresult (*)(void))(); }
CUresult peer_cu_enable(CUcontext c) { return CU(fCtxEnablePeerAccess, CUresult (*)(CUcontext, unsigned))(c, 0); }
CUresult peer_cu_disable(CUcontext c) { return CU(fCtxDisablePeerAccess, CUresult (*)(CUcontext))(c); }
CUresult peer_cu_alloc(CUdeviceptr* p, size_t n) { return CU(fMemAlloc, CUresult (*)(CUdeviceptr*, size_t))(p, n); }
CUresult peer_cu_free(CUdeviceptr p) { return CU(fMemFree, CUresult (*)(CUdeviceptr))(p); }
CUresult peer_cu_htod(CUdeviceptr d, const void* s, size_t n) { return CU(fMemcpyHtoD, CUresult (*)(CUdeviceptr, const void*, size_t))(d, s, n); }
CUresult peer_cu_dtoh(void* d, CUdeviceptr s, size_t n) { return CU(fMemcpyDtoH, CUresult (*)(void*, CUdeviceptr, size_t))(d, s, n); }
CUresult peer_cu_memset32(CUdeviceptr d, unsigned v, size_t n) { return CU(fMemsetD32, CUresult (*)(CUdeviceptr, unsigned, size_t))(d, v, n); }
CUresult peer_cu_peercopy(CUdeviceptr d, CUcontext dc, CUdeviceptr s, CUcontext sc, size_t n, CUstream st) {
	return CU(fMemcpyPeerAsync, CUresult (*)(CUdeviceptr, CUcontext, CUdeviceptr, CUcontext, size_t, CUstream))(d, dc, s, sc, n, st);
}
CUresult peer_cu_stream(CUstream* s) { return CU(fStreamCreate, CUresult (*)(CUstream*, unsigned))(s, 1); }
CUresult peer_cu_stream_destroy(CUstream s) { return CU(fStreamDestroy, CUresult (*)(CUstream))(s); }
CUresult peer_cu_event(CUevent* e) { return CU(fEventCreate, CUresult (*)(CUevent*, unsigned))(e, 0); }
CUresult peer_cu_event_destroy(CUevent e) { return CU(fEventDestroy, CUresult (*)(CUevent))(e); }
CUresult peer_cu_record(CUevent e, CUstream s) { return CU(fEventRecord, CUresult (*)(CUevent, CUstream))(e, s); }
CUresult peer_cu_event_sync(CUevent e) { return CU(fEventSynchronize, CUresult (*)(CUevent))(e); }
CUresult peer_cu_elapsed(float* ms, CUevent a, CUevent b) { return CU(fEventElapsedTime, CUresult (*)(float*, CUevent, CUevent))(ms, a, b); }
const char* peer_cu_errname(CUresult r) {
	const char* s = NULL;
	if (CU(fGetErrorName, CUresult (*)(CUresult, const char**))(r, &s) != 0 || s == NULL) return "unknown";
	return s;
}

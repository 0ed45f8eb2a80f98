//go:build linux && cgo

// The CUDA driver API loaded at run time: dlopen of the library and dlsym
// of every entry point the probes call (the _v2 names cuda.h maps the
// plain names to). Each cu_api holds its own handle, so a test can load a
// fake driver beside (or instead of) the real one.
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

#include "cudaapi.h"

enum {
	fInit, fDeviceGetCount, fDeviceGet, fDeviceGetPCIBusId, fDeviceGetName, fDeviceCanAccessPeer,
	fPrimaryCtxRetain, fPrimaryCtxRelease, fCtxSetCurrent, fCtxSynchronize,
	fCtxEnablePeerAccess, fCtxDisablePeerAccess, fMemAlloc, fMemFree,
	fMemcpyHtoD, fMemcpyDtoH, fMemsetD32, fMemcpyPeerAsync,
	fStreamCreate, fStreamDestroy, fEventCreate, fEventDestroy, fEventRecord,
	fEventSynchronize, fEventElapsedTime, fGetErrorName, fCount
};

static const char* names[fCount] = {
	"cuInit", "cuDeviceGetCount", "cuDeviceGet", "cuDeviceGetPCIBusId", "cuDeviceGetName", "cuDeviceCanAccessPeer",
	"cuDevicePrimaryCtxRetain", "cuDevicePrimaryCtxRelease_v2", "cuCtxSetCurrent", "cuCtxSynchronize",
	"cuCtxEnablePeerAccess", "cuCtxDisablePeerAccess", "cuMemAlloc_v2", "cuMemFree_v2",
	"cuMemcpyHtoD_v2", "cuMemcpyDtoH_v2", "cuMemsetD32_v2", "cuMemcpyPeerAsync",
	"cuStreamCreate", "cuStreamDestroy_v2", "cuEventCreate", "cuEventDestroy_v2", "cuEventRecord",
	"cuEventSynchronize", "cuEventElapsedTime", "cuGetErrorName",
};

struct cu_api {
	void* lib;
	void* fn[fCount];
	char msg[512];
};

cu_api* cu_new(void) { return calloc(1, sizeof(cu_api)); }

// cu_open loads the driver from path (a file, or a soname for the dynamic
// loader's search) and resolves every entry point. It returns NULL, or a
// message (dlerror's, or the missing entry point's name) with the library
// closed again.
const char* cu_open(cu_api* a, const char* path) {
	a->lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (a->lib == NULL) {
		const char* e = dlerror();
		snprintf(a->msg, sizeof a->msg, "%s", e ? e : "dlopen failed");
		return a->msg;
	}
	for (int i = 0; i < fCount; i++) {
		a->fn[i] = dlsym(a->lib, names[i]);
		if (a->fn[i] == NULL) {
			snprintf(a->msg, sizeof a->msg, "entry point %s missing", names[i]);
			dlclose(a->lib);
			a->lib = NULL;
			return a->msg;
		}
	}
	return NULL;
}

void cu_close(cu_api* a) {
	if (a == NULL) return;
	if (a->lib != NULL) dlclose(a->lib);
	free(a);
}

#define CU(f, T) ((T)a->fn[f])
CUresult cu_init(cu_api* a) { return CU(fInit, CUresult (*)(unsigned))(0); }
CUresult cu_count(cu_api* a, int* n) { return CU(fDeviceGetCount, CUresult (*)(int*))(n); }
CUresult cu_device(cu_api* a, CUdevice* d, int i) { return CU(fDeviceGet, CUresult (*)(CUdevice*, int))(d, i); }
CUresult cu_busid(cu_api* a, char* s, int n, CUdevice d) { return CU(fDeviceGetPCIBusId, CUresult (*)(char*, int, CUdevice))(s, n, d); }
CUresult cu_name(cu_api* a, char* s, int n, CUdevice d) { return CU(fDeviceGetName, CUresult (*)(char*, int, CUdevice))(s, n, d); }
CUresult cu_can(cu_api* a, int* ok, CUdevice x, CUdevice y) { return CU(fDeviceCanAccessPeer, CUresult (*)(int*, CUdevice, CUdevice))(ok, x, y); }
CUresult cu_retain(cu_api* a, CUcontext* c, CUdevice d) { return CU(fPrimaryCtxRetain, CUresult (*)(CUcontext*, CUdevice))(c, d); }
CUresult cu_release(cu_api* a, CUdevice d) { return CU(fPrimaryCtxRelease, CUresult (*)(CUdevice))(d); }
CUresult cu_current(cu_api* a, CUcontext c) { return CU(fCtxSetCurrent, CUresult (*)(CUcontext))(c); }
CUresult cu_sync(cu_api* a) { return CU(fCtxSynchronize, CUresult (*)(void))(); }
CUresult cu_enable(cu_api* a, CUcontext c) { return CU(fCtxEnablePeerAccess, CUresult (*)(CUcontext, unsigned))(c, 0); }
CUresult cu_disable(cu_api* a, CUcontext c) { return CU(fCtxDisablePeerAccess, CUresult (*)(CUcontext))(c); }
CUresult cu_alloc(cu_api* a, CUdeviceptr* p, size_t n) { return CU(fMemAlloc, CUresult (*)(CUdeviceptr*, size_t))(p, n); }
CUresult cu_free(cu_api* a, CUdeviceptr p) { return CU(fMemFree, CUresult (*)(CUdeviceptr))(p); }
CUresult cu_htod(cu_api* a, CUdeviceptr d, const void* s, size_t n) { return CU(fMemcpyHtoD, CUresult (*)(CUdeviceptr, const void*, size_t))(d, s, n); }
CUresult cu_dtoh(cu_api* a, void* d, CUdeviceptr s, size_t n) { return CU(fMemcpyDtoH, CUresult (*)(void*, CUdeviceptr, size_t))(d, s, n); }
CUresult cu_memset32(cu_api* a, CUdeviceptr d, unsigned v, size_t n) { return CU(fMemsetD32, CUresult (*)(CUdeviceptr, unsigned, size_t))(d, v, n); }
CUresult cu_peercopy(cu_api* a, CUdeviceptr d, CUcontext dc, CUdeviceptr s, CUcontext sc, size_t n, CUstream st) {
	return CU(fMemcpyPeerAsync, CUresult (*)(CUdeviceptr, CUcontext, CUdeviceptr, CUcontext, size_t, CUstream))(d, dc, s, sc, n, st);
}
CUresult cu_stream(cu_api* a, CUstream* s) { return CU(fStreamCreate, CUresult (*)(CUstream*, unsigned))(s, 1); }
CUresult cu_stream_destroy(cu_api* a, CUstream s) { return CU(fStreamDestroy, CUresult (*)(CUstream))(s); }
CUresult cu_event(cu_api* a, CUevent* e) { return CU(fEventCreate, CUresult (*)(CUevent*, unsigned))(e, 0); }
CUresult cu_event_destroy(cu_api* a, CUevent e) { return CU(fEventDestroy, CUresult (*)(CUevent))(e); }
CUresult cu_record(cu_api* a, CUevent e, CUstream s) { return CU(fEventRecord, CUresult (*)(CUevent, CUstream))(e, s); }
CUresult cu_event_sync(cu_api* a, CUevent e) { return CU(fEventSynchronize, CUresult (*)(CUevent))(e); }
CUresult cu_elapsed(cu_api* a, float* ms, CUevent b, CUevent e) { return CU(fEventElapsedTime, CUresult (*)(float*, CUevent, CUevent))(ms, b, e); }
const char* cu_errname(cu_api* a, CUresult r) {
	const char* s = NULL;
	if (CU(fGetErrorName, CUresult (*)(CUresult, const char**))(r, &s) != 0 || s == NULL) return "unknown";
	return s;
}

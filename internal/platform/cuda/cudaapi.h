// The few CUDA driver API types the probes need, declared here so the
// package builds without CUDA headers, and the loader's entry points.
#ifndef APPRAISE_CUDA_CUDAAPI_H
#define APPRAISE_CUDA_CUDAAPI_H
#include <stddef.h>

typedef int CUresult;
typedef int CUdevice;
typedef void* CUcontext;
typedef void* CUstream;
typedef void* CUevent;
typedef unsigned long long CUdeviceptr;

// cu_api is one loaded driver library: the dlopen handle and the
// resolved entry points. Each Driver owns one; nothing here is global.
typedef struct cu_api cu_api;

cu_api* cu_new(void);
const char* cu_open(cu_api* a, const char* path);
void cu_close(cu_api* a);

CUresult cu_init(cu_api* a);
CUresult cu_count(cu_api* a, int* n);
CUresult cu_device(cu_api* a, CUdevice* d, int i);
CUresult cu_busid(cu_api* a, char* s, int n, CUdevice d);
CUresult cu_name(cu_api* a, char* s, int n, CUdevice d);
CUresult cu_can(cu_api* a, int* ok, CUdevice x, CUdevice y);
CUresult cu_retain(cu_api* a, CUcontext* c, CUdevice d);
CUresult cu_release(cu_api* a, CUdevice d);
CUresult cu_current(cu_api* a, CUcontext c);
CUresult cu_sync(cu_api* a);
CUresult cu_enable(cu_api* a, CUcontext c);
CUresult cu_disable(cu_api* a, CUcontext c);
CUresult cu_alloc(cu_api* a, CUdeviceptr* p, size_t n);
CUresult cu_free(cu_api* a, CUdeviceptr p);
CUresult cu_htod(cu_api* a, CUdeviceptr d, const void* s, size_t n);
CUresult cu_dtoh(cu_api* a, void* d, CUdeviceptr s, size_t n);
CUresult cu_memset32(cu_api* a, CUdeviceptr d, unsigned v, size_t n);
CUresult cu_peercopy(cu_api* a, CUdeviceptr d, CUcontext dc, CUdeviceptr s, CUcontext sc, size_t n, CUstream st);
CUresult cu_stream(cu_api* a, CUstream* s);
CUresult cu_stream_destroy(cu_api* a, CUstream s);
CUresult cu_event(cu_api* a, CUevent* e);
CUresult cu_event_destroy(cu_api* a, CUevent e);
CUresult cu_record(cu_api* a, CUevent e, CUstream s);
CUresult cu_event_sync(cu_api* a, CUevent e);
CUresult cu_elapsed(cu_api* a, float* ms, CUevent b, CUevent e);
const char* cu_errname(cu_api* a, CUresult r);

#endif

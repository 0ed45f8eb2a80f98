// The few CUDA driver API types and the loader's entry points, declared
// here so the package builds without CUDA headers.
#ifndef APPRAISE_PEER_CUDADRV_H
#define APPRAISE_PEER_CUDADRV_H
#include <stddef.h>

typedef int CUresult;
typedef int CUdevice;
typedef void* CUcontext;
typedef void* CUstream;
typedef void* CUevent;
typedef unsigned long long CUdeviceptr;

const char* peer_cu_load(void);
CUresult peer_cu_init(void);
CUresult peer_cu_count(int* n);
CUresult peer_cu_device(CUdevice* d, int i);
CUresult peer_cu_busid(char* s, int n, CUdevice d);
CUresult peer_cu_can(int* ok, CUdevice a, CUdevice b);
CUresult peer_cu_retain(CUcontext* c, CUdevice d);
CUresult peer_cu_release(CUdevice d);
CUresult peer_cu_current(CUcontext c);
CUresult peer_cu_sync(void);
CUresult peer_cu_enable(CUcontext c);
CUresult peer_cu_disable(CUcontext c);
CUresult peer_cu_alloc(CUdeviceptr* p, size_t n);
CUresult peer_cu_free(CUdeviceptr p);
CUresult peer_cu_htod(CUdeviceptr d, const void* s, size_t n);
CUresult peer_cu_dtoh(void* d, CUdeviceptr s, size_t n);
CUresult peer_cu_memset32(CUdeviceptr d, unsigned v, size_t n);
CUresult peer_cu_peercopy(CUdeviceptr d, CUcontext dc, CUdeviceptr s, CUcontext sc, size_t n, CUstream st);
CUresult peer_cu_stream(CUstream* s);
CUresult peer_cu_stream_destroy(CUstream s);
CUresult peer_cu_event(CUevent* e);
CUresult peer_cu_event_destroy(CUevent e);
CUresult peer_cu_record(CUevent e, CUstream s);
CUresult peer_cu_event_sync(CUevent e);
CUresult peer_cu_elapsed(float* ms, CUevent a, CUevent b);
const char* peer_cu_errname(CUresult r);

#endif

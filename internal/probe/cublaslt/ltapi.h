// The few cuBLASLt types the probe needs (and the driver's two it passes
// to cuBLASLt), declared here so the package builds without CUDA headers,
// and the loader's entry points. The driver itself is
// internal/platform/cuda's.
// Handles are opaque pointers; the one struct passed by value
// (cublasLtMatmulHeuristicResult_t) is laid out as cublasLt.h declares it.
#ifndef APPRAISE_CUBLASLT_LTAPI_H
#define APPRAISE_CUBLASLT_LTAPI_H
#include <stddef.h>
#include <stdint.h>

typedef void* CUstream;
typedef unsigned long long CUdeviceptr;

typedef int cublasStatus_t;
typedef void* cublasLtHandle_t;
typedef void* cublasLtMatmulDesc_t;
typedef void* cublasLtMatrixLayout_t;
typedef void* cublasLtMatmulPreference_t;

// cublasLt.h: typedef struct { uint64_t data[8]; } cublasLtMatmulAlgo_t;
typedef struct {
	uint64_t data[8];
} cublasLtMatmulAlgo_t;

// cublasLt.h: the heuristic's answer for one algorithm.
typedef struct {
	cublasLtMatmulAlgo_t algo;
	size_t workspaceSize;
	cublasStatus_t state;
	float wavesCount;
	int reserved[4];
} cublasLtMatmulHeuristicResult_t;

// lt_api is one loaded cuBLASLt: the dlopen handle and the resolved
// entry points. Each Library owns one; nothing here is global.
typedef struct lt_api lt_api;

lt_api* lt_new(void);
const char* lt_open_blas(lt_api* a, const char* path);
const char* lt_blas_file(lt_api* a);
void lt_close(lt_api* a);

size_t lt_version(lt_api* a);
cublasStatus_t lt_create(lt_api* a, cublasLtHandle_t* h);
cublasStatus_t lt_destroy(lt_api* a, cublasLtHandle_t h);
cublasStatus_t lt_desc_create(lt_api* a, cublasLtMatmulDesc_t* d, int compute, int scale);
cublasStatus_t lt_desc_destroy(lt_api* a, cublasLtMatmulDesc_t d);
cublasStatus_t lt_desc_set(lt_api* a, cublasLtMatmulDesc_t d, int attr, const void* buf, size_t n);
cublasStatus_t lt_layout_create(lt_api* a, cublasLtMatrixLayout_t* l, int type, uint64_t rows, uint64_t cols, int64_t ld);
cublasStatus_t lt_layout_destroy(lt_api* a, cublasLtMatrixLayout_t l);
cublasStatus_t lt_pref_create(lt_api* a, cublasLtMatmulPreference_t* p);
cublasStatus_t lt_pref_destroy(lt_api* a, cublasLtMatmulPreference_t p);
cublasStatus_t lt_pref_set(lt_api* a, cublasLtMatmulPreference_t p, int attr, const void* buf, size_t n);
cublasStatus_t lt_heuristic(lt_api* a, cublasLtHandle_t h, cublasLtMatmulDesc_t d, cublasLtMatrixLayout_t la,
                            cublasLtMatrixLayout_t lb, cublasLtMatrixLayout_t lc, cublasLtMatrixLayout_t ld,
                            cublasLtMatmulPreference_t p, int want, cublasLtMatmulHeuristicResult_t* res, int* got);
cublasStatus_t lt_matmul(lt_api* a, cublasLtHandle_t h, cublasLtMatmulDesc_t d, const void* alpha, CUdeviceptr A,
                         cublasLtMatrixLayout_t la, CUdeviceptr B, cublasLtMatrixLayout_t lb, const void* beta,
                         CUdeviceptr D, cublasLtMatrixLayout_t ld, const cublasLtMatmulAlgo_t* algo,
                         CUdeviceptr ws, size_t wsBytes, CUstream s);
cublasStatus_t lt_matmul_repeat(lt_api* a, int times, cublasLtHandle_t h, cublasLtMatmulDesc_t d, const void* alpha,
                                CUdeviceptr A, cublasLtMatrixLayout_t la, CUdeviceptr B, cublasLtMatrixLayout_t lb,
                                const void* beta, CUdeviceptr D, cublasLtMatrixLayout_t ld,
                                const cublasLtMatmulAlgo_t* algo, CUdeviceptr ws, size_t wsBytes, CUstream s);

#endif

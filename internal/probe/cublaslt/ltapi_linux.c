//go:build linux && cgo

// cuBLASLt loaded at run time: dlopen of the library and dlsym of the
// entry points the probe calls. Each lt_api holds its own handle, so a
// test can load a fake library beside (or instead of) the real one.
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ltapi.h"

enum {
	bVersion, bCreate, bDestroy, bDescCreate, bDescDestroy, bDescSet, bLayoutCreate,
	bLayoutDestroy, bPrefCreate, bPrefDestroy, bPrefSet, bHeuristic, bMatmul, bCount
};

static const char* blas_names[bCount] = {
	"cublasLtGetVersion", "cublasLtCreate", "cublasLtDestroy", "cublasLtMatmulDescCreate",
	"cublasLtMatmulDescDestroy", "cublasLtMatmulDescSetAttribute", "cublasLtMatrixLayoutCreate",
	"cublasLtMatrixLayoutDestroy", "cublasLtMatmulPreferenceCreate", "cublasLtMatmulPreferenceDestroy",
	"cublasLtMatmulPreferenceSetAttribute", "cublasLtMatmulAlgoGetHeuristic", "cublasLtMatmul",
};

struct lt_api {
	void* blas;
	void* b[bCount];
	char file[4096];
	char msg[512];
};

lt_api* lt_new(void) { return calloc(1, sizeof(lt_api)); }

// resolve fills fn from lib; it returns NULL or a message naming the
// missing entry point.
static const char* resolve(lt_api* a, void* lib, const char** names, void** fn, int n) {
	for (int i = 0; i < n; i++) {
		fn[i] = dlsym(lib, names[i]);
		if (fn[i] == NULL) {
			snprintf(a->msg, sizeof a->msg, "entry point %s missing", names[i]);
			return a->msg;
		}
	}
	return NULL;
}

// open dlopens path into *h; it returns NULL or dlerror's message.
static const char* open_lib(lt_api* a, const char* path, void** h) {
	*h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (*h == NULL) {
		const char* e = dlerror();
		snprintf(a->msg, sizeof a->msg, "%s", e ? e : "dlopen failed");
		return a->msg;
	}
	return NULL;
}

// lt_open_blas loads cuBLASLt from path (a file or a soname for the
// dynamic loader's search) and resolves its entry points. On failure the
// library is closed again and a message returned.
const char* lt_open_blas(lt_api* a, const char* path) {
	const char* e = open_lib(a, path, &a->blas);
	if (e != NULL) return e;
	e = resolve(a, a->blas, blas_names, a->b, bCount);
	if (e != NULL) {
		dlclose(a->blas);
		a->blas = NULL;
		return e;
	}
	Dl_info info;
	a->file[0] = 0;
	if (dladdr(a->b[bVersion], &info) != 0 && info.dli_fname != NULL) {
		snprintf(a->file, sizeof a->file, "%s", info.dli_fname);
	}
	return NULL;
}

// lt_blas_file is the file the loaded cuBLASLt came from, as dladdr
// reports it ("" if it could not say).
const char* lt_blas_file(lt_api* a) { return a->file; }

void lt_close(lt_api* a) {
	if (a == NULL) return;
	if (a->blas != NULL) dlclose(a->blas);
	free(a);
}

#define B(f, T) ((T)a->b[f])
size_t lt_version(lt_api* a) { return B(bVersion, size_t (*)(void))(); }
cublasStatus_t lt_create(lt_api* a, cublasLtHandle_t* h) { return B(bCreate, cublasStatus_t (*)(cublasLtHandle_t*))(h); }
cublasStatus_t lt_destroy(lt_api* a, cublasLtHandle_t h) { return B(bDestroy, cublasStatus_t (*)(cublasLtHandle_t))(h); }
cublasStatus_t lt_desc_create(lt_api* a, cublasLtMatmulDesc_t* d, int compute, int scale) {
	return B(bDescCreate, cublasStatus_t (*)(cublasLtMatmulDesc_t*, int, int))(d, compute, scale);
}
cublasStatus_t lt_desc_destroy(lt_api* a, cublasLtMatmulDesc_t d) { return B(bDescDestroy, cublasStatus_t (*)(cublasLtMatmulDesc_t))(d); }
cublasStatus_t lt_desc_set(lt_api* a, cublasLtMatmulDesc_t d, int attr, const void* buf, size_t n) {
	return B(bDescSet, cublasStatus_t (*)(cublasLtMatmulDesc_t, int, const void*, size_t))(d, attr, buf, n);
}
cublasStatus_t lt_layout_create(lt_api* a, cublasLtMatrixLayout_t* l, int type, uint64_t rows, uint64_t cols, int64_t ld) {
	return B(bLayoutCreate, cublasStatus_t (*)(cublasLtMatrixLayout_t*, int, uint64_t, uint64_t, int64_t))(l, type, rows, cols, ld);
}
cublasStatus_t lt_layout_destroy(lt_api* a, cublasLtMatrixLayout_t l) { return B(bLayoutDestroy, cublasStatus_t (*)(cublasLtMatrixLayout_t))(l); }
cublasStatus_t lt_pref_create(lt_api* a, cublasLtMatmulPreference_t* p) { return B(bPrefCreate, cublasStatus_t (*)(cublasLtMatmulPreference_t*))(p); }
cublasStatus_t lt_pref_destroy(lt_api* a, cublasLtMatmulPreference_t p) { return B(bPrefDestroy, cublasStatus_t (*)(cublasLtMatmulPreference_t))(p); }
cublasStatus_t lt_pref_set(lt_api* a, cublasLtMatmulPreference_t p, int attr, const void* buf, size_t n) {
	return B(bPrefSet, cublasStatus_t (*)(cublasLtMatmulPreference_t, int, const void*, size_t))(p, attr, buf, n);
}
cublasStatus_t lt_heuristic(lt_api* a, cublasLtHandle_t h, cublasLtMatmulDesc_t d, cublasLtMatrixLayout_t la,
                            cublasLtMatrixLayout_t lb, cublasLtMatrixLayout_t lc, cublasLtMatrixLayout_t ld,
                            cublasLtMatmulPreference_t p, int want, cublasLtMatmulHeuristicResult_t* res, int* got) {
	typedef cublasStatus_t (*F)(cublasLtHandle_t, cublasLtMatmulDesc_t, cublasLtMatrixLayout_t, cublasLtMatrixLayout_t,
	                            cublasLtMatrixLayout_t, cublasLtMatrixLayout_t, cublasLtMatmulPreference_t, int,
	                            cublasLtMatmulHeuristicResult_t*, int*);
	return B(bHeuristic, F)(h, d, la, lb, lc, ld, p, want, res, got);
}

// lt_matmul runs D = alpha·op(A)·op(B) + beta·D: C is D, in place.
cublasStatus_t lt_matmul(lt_api* a, cublasLtHandle_t h, cublasLtMatmulDesc_t d, const void* alpha, CUdeviceptr A,
                         cublasLtMatrixLayout_t la, CUdeviceptr B, cublasLtMatrixLayout_t lb, const void* beta,
                         CUdeviceptr D, cublasLtMatrixLayout_t ld, const cublasLtMatmulAlgo_t* algo,
                         CUdeviceptr ws, size_t wsBytes, CUstream s) {
	typedef cublasStatus_t (*F)(cublasLtHandle_t, cublasLtMatmulDesc_t, const void*, const void*, cublasLtMatrixLayout_t,
	                            const void*, cublasLtMatrixLayout_t, const void*, const void*, cublasLtMatrixLayout_t,
	                            void*, cublasLtMatrixLayout_t, const cublasLtMatmulAlgo_t*, void*, size_t, CUstream);
	return B(bMatmul, F)(h, d, alpha, (const void*)A, la, (const void*)B, lb, beta, (const void*)D, ld, (void*)D, ld,
	                     algo, (void*)ws, wsBytes, s);
}

// lt_matmul_repeat enqueues times launches back to back, stopping at the
// first failure, so a timed batch costs one cgo call.
cublasStatus_t lt_matmul_repeat(lt_api* a, int times, cublasLtHandle_t h, cublasLtMatmulDesc_t d, const void* alpha,
                                CUdeviceptr A, cublasLtMatrixLayout_t la, CUdeviceptr B, cublasLtMatrixLayout_t lb,
                                const void* beta, CUdeviceptr D, cublasLtMatrixLayout_t ld,
                                const cublasLtMatmulAlgo_t* algo, CUdeviceptr ws, size_t wsBytes, CUstream s) {
	for (int i = 0; i < times; i++) {
		cublasStatus_t r = lt_matmul(a, h, d, alpha, A, la, B, lb, beta, D, ld, algo, ws, wsBytes, s);
		if (r != 0) return r;
	}
	return 0;
}

// A fake cuBLASLt and CUDA driver for the tests: it exports exactly the
// entry points the probe calls and computes every GEMM on the CPU, so the
// whole probe (loading, heuristic refusals, timing, the check) runs
// without a GPU. "Device memory" is host memory; events read the clock.
//
// It is as strict as the real library where the probe could go wrong:
// fp8 and int8 need the TN layout, the compute type must match the data
// types, e5m2×e5m2 is not offered, fp4/fp6 need block-scale modes, and
// alpha is read in the scale type.
//
// Environment, read at each call:
//   FAKE_LT_MODE     "" correct; "wrong" corrupts one output element;
//                    "nofp8" offers no fp8 algorithm; "noblock" refuses
//                    the scale-mode attributes as a pre-12.8 library does;
//                    "wrong1" corrupts one element with algorithm 1 only
//   FAKE_LT_ALGOS    how many algorithms the heuristic proposes at most
//                    (default 3); algorithm i asks for (i+1) KiB of
//                    workspace
//   FAKE_LT_SLOW     the digits of the algorithms that take 20 ms more per
//                    GEMM (on the model clock when there is one, else
//                    asleep), e.g. "0" or "02" (default: none)
//   FAKE_LT_VERSION  cublasLtGetVersion's answer (default 130100)
//   FAKE_CUDA_BUSID  the one device's PCI address (default 0000:00:06.0)
//   FAKE_LT_LEAKS    a file to which cuDevicePrimaryCtxRelease writes the
//                    number of objects still alive ("0" when all released)
//   FAKE_LT_PEAK     when set (operations/s), events read a model clock
//                    instead of the host's, and each GEMM advances it by
//                    max((2mnk + HIDDEN·m·n) / PEAK, bytes / BW), bytes
//                    being A, B and D as stored: a device on its roofline
//                    whatever the host's speed, so timing tests are exact
//   FAKE_LT_BW       the model's memory bandwidth, bytes/s (default 1e9)
//   FAKE_LT_HIDDEN   operations of uncounted work per output element
//                    (default 0): a compute path that sags where compute
//                    and memory both bind
//
// Built by the tests with: gcc -shared -fPIC -O2 -o lib.so fakelt.c -lm
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char* mode(void) {
	const char* m = getenv("FAKE_LT_MODE");
	return m ? m : "";
}

static long live; // allocations, descriptors, layouts, preferences, events, streams, handles

static void* obj(size_t n) {
	live++;
	return calloc(1, n);
}

static void unobj(void* p) {
	if (p != NULL) {
		live--;
		free(p);
	}
}

// ---- CUDA driver ----

int cuInit(unsigned flags) { return 0; }
int cuDeviceGetCount(int* n) { *n = 1; return 0; }
int cuDeviceGet(int* d, int i) { if (i != 0) return 101; *d = 0; return 0; }
int cuDeviceGetPCIBusId(char* s, int n, int d) {
	const char* id = getenv("FAKE_CUDA_BUSID");
	snprintf(s, n, "%s", id ? id : "0000:00:06.0");
	return 0;
}
int cuDeviceGetName(char* s, int n, int d) { snprintf(s, n, "Fake GPU"); return 0; }
static int ctx_token;
int cuDevicePrimaryCtxRetain(void** c, int d) { *c = &ctx_token; return 0; }
int cuDevicePrimaryCtxRelease_v2(int d) {
	const char* f = getenv("FAKE_LT_LEAKS");
	if (f != NULL) {
		FILE* fp = fopen(f, "w");
		if (fp) { fprintf(fp, "%ld", live); fclose(fp); }
	}
	return 0;
}
int cuCtxSetCurrent(void* c) { return 0; }
int cuCtxSynchronize(void) { return 0; }
int cuMemAlloc_v2(unsigned long long* p, size_t n) { *p = (unsigned long long)(uintptr_t)obj(n); return *p ? 0 : 2; }
int cuMemFree_v2(unsigned long long p) { unobj((void*)(uintptr_t)p); return 0; }
int cuMemcpyHtoD_v2(unsigned long long d, const void* s, size_t n) { memcpy((void*)(uintptr_t)d, s, n); return 0; }
int cuMemcpyDtoH_v2(void* d, unsigned long long s, size_t n) { memcpy(d, (void*)(uintptr_t)s, n); return 0; }
// One fake device has no peer: the peer-access entry points the shared
// driver loader (internal/platform/cuda) resolves say so.
int cuDeviceCanAccessPeer(int* ok, int d, int p) { *ok = 0; return 0; }
int cuCtxEnablePeerAccess(void* c, unsigned f) { return 801; }
int cuCtxDisablePeerAccess(void* c) { return 801; }
int cuMemsetD32_v2(unsigned long long d, unsigned v, size_t n) {
	for (size_t i = 0; i < n; i++) ((unsigned*)(uintptr_t)d)[i] = v;
	return 0;
}
int cuMemcpyPeerAsync(unsigned long long d, void* dc, unsigned long long s, void* sc, size_t n, void* st) { return 801; }
int cuStreamCreate(void** s, unsigned f) { *s = obj(8); return 0; }
int cuStreamDestroy_v2(void* s) { unobj(s); return 0; }
// The model clock (FAKE_LT_PEAK), in seconds.
static double model_now;

static double env_num(const char* name, double def) {
	const char* v = getenv(name);
	return v ? atof(v) : def;
}

static int model_clock(void) { return getenv("FAKE_LT_PEAK") != NULL; }

typedef struct {
	struct timespec ts;
	double model;
} event;

int cuEventCreate(void** e, unsigned f) { *e = obj(sizeof(event)); return 0; }
int cuEventDestroy_v2(void* e) { unobj(e); return 0; }
int cuEventRecord(void* e, void* s) {
	event* ev = e;
	clock_gettime(CLOCK_MONOTONIC, &ev->ts);
	ev->model = model_now;
	return 0;
}
int cuEventSynchronize(void* e) { return 0; }
int cuEventElapsedTime(float* ms, void* b, void* e) {
	event* x = b;
	event* y = e;
	if (model_clock()) {
		*ms = (float)((y->model - x->model) * 1e3);
		return 0;
	}
	*ms = (float)((y->ts.tv_sec - x->ts.tv_sec) * 1e3 + (y->ts.tv_nsec - x->ts.tv_nsec) / 1e6);
	return 0;
}
int cuGetErrorName(int r, const char** s) { *s = "CUDA_ERROR_FAKE"; return 0; }

// ---- cuBLASLt ----

enum { R32F = 0, R64F = 1, R16F = 2, R8I = 3, R32I = 10, R16BF = 14, E4M3 = 28, E5M2 = 29, E2M3 = 31, E3M2 = 32, E2M1 = 33 };
enum { C16F = 64, C32F = 68, C64F = 70, C32I = 72, C32F_TF32 = 77 };
enum { OK = 0, INVALID = 7, NOT_SUPPORTED = 15 };

typedef struct {
	int compute, scale, transa, transb, amode, bmode;
	const void *ascale, *bscale;
} desc;

typedef struct {
	int type;
	uint64_t rows, cols;
	int64_t ld;
} layout;

typedef struct {
	uint64_t data[8];
} algo_t;

typedef struct {
	algo_t algo;
	size_t workspaceSize;
	int state;
	float wavesCount;
	int reserved[4];
} heur;

size_t cublasLtGetVersion(void) {
	const char* v = getenv("FAKE_LT_VERSION");
	return v ? (size_t)atol(v) : 130100;
}
int cublasLtCreate(void** h) { *h = obj(8); return 0; }
int cublasLtDestroy(void* h) { unobj(h); return 0; }
int cublasLtMatmulDescCreate(desc** d, int compute, int scale) {
	*d = obj(sizeof(desc));
	(*d)->compute = compute;
	(*d)->scale = scale;
	return 0;
}
int cublasLtMatmulDescDestroy(desc* d) { unobj(d); return 0; }
int cublasLtMatmulDescSetAttribute(desc* d, int attr, const void* buf, size_t n) {
	switch (attr) {
	case 3: d->transa = *(const int32_t*)buf; return 0;
	case 4: d->transb = *(const int32_t*)buf; return 0;
	case 17: d->ascale = *(const void* const*)buf; return 0;
	case 18: d->bscale = *(const void* const*)buf; return 0;
	case 31:
	case 32:
		if (strcmp(mode(), "noblock") == 0) return INVALID;
		if (n != 4) return INVALID;
		*(attr == 31 ? &d->amode : &d->bmode) = *(const int32_t*)buf;
		return 0;
	}
	return INVALID;
}
int cublasLtMatrixLayoutCreate(layout** l, int type, uint64_t rows, uint64_t cols, int64_t ld) {
	*l = obj(sizeof(layout));
	**l = (layout){type, rows, cols, ld};
	return 0;
}
int cublasLtMatrixLayoutDestroy(layout* l) { unobj(l); return 0; }
int cublasLtMatmulPreferenceCreate(void** p) { *p = obj(8); return 0; }
int cublasLtMatmulPreferenceDestroy(void* p) { unobj(p); return 0; }
int cublasLtMatmulPreferenceSetAttribute(void* p, int attr, const void* buf, size_t n) { return attr == 1 && n == 8 ? 0 : INVALID; }

static int is_fp8(int t) { return t == E4M3 || t == E5M2; }
static int is_narrow(int t) { return t == E2M1 || t == E2M3 || t == E3M2; }

// offered says whether the fake has an algorithm for this problem.
static int offered(const desc* d, const layout* a, const layout* b, const layout* c) {
	int block = d->amode != 0 || d->bmode != 0;
	if (block && (d->ascale == NULL || d->bscale == NULL)) return 0;
	if (is_narrow(a->type) || is_narrow(b->type)) return block && d->compute == C32F && d->amode == d->bmode;
	if (is_fp8(a->type) || is_fp8(b->type)) {
		if (strcmp(mode(), "nofp8") == 0) return 0;
		if (a->type == E5M2 && b->type == E5M2) return 0;
		return d->transa == 1 && d->transb == 0 && d->compute == C32F && (c->type == R16BF || c->type == R16F || c->type == R32F);
	}
	if (block) return 0;
	switch (d->compute) {
	case C16F: return a->type == R16F && b->type == R16F && c->type == R16F && d->scale == R16F;
	case C32F: return a->type == b->type && (a->type == R16F || a->type == R16BF || a->type == R32F) && (c->type == a->type || c->type == R32F) && d->scale == R32F;
	case C32F_TF32: return a->type == R32F && b->type == R32F && c->type == R32F;
	case C64F: return a->type == R64F && b->type == R64F && c->type == R64F && d->scale == R64F;
	case C32I: return a->type == R8I && b->type == R8I && c->type == R32I && d->scale == R32I && d->transa == 1 && d->transb == 0;
	}
	return 0;
}

int cublasLtMatmulAlgoGetHeuristic(void* h, desc* d, layout* a, layout* b, layout* c, layout* dd, void* pref, int want,
                                   heur* res, int* got) {
	*got = 0;
	if (!offered(d, a, b, c)) return NOT_SUPPORTED;
	const char* n = getenv("FAKE_LT_ALGOS");
	int have = n ? atoi(n) : 3;
	for (int i = 0; i < have && i < want; i++) {
		memset(&res[i], 0, sizeof res[i]);
		res[i].algo.data[0] = 42 + i;
		res[i].workspaceSize = 1024 * (i + 1);
		*got = i + 1;
	}
	return 0;
}

// slow says whether algorithm i is one FAKE_LT_SLOW names.
static int slow(int i) {
	const char* s = getenv("FAKE_LT_SLOW");
	return s != NULL && strchr(s, '0' + i) != NULL;
}

static double half_value(uint16_t h) {
	int e = h >> 10 & 0x1f, m = h & 0x3ff;
	double s = h & 0x8000 ? -1 : 1;
	if (e == 0) return s * ldexp(m, -24);
	if (e == 31) return m ? NAN : s * INFINITY;
	return s * ldexp(m | 0x400, e - 25);
}

// mini decodes a small float with the given exponent and mantissa bits
// (no inf/NaN handling needed for the random inputs the probe draws).
static double mini(unsigned b, int exp, int man) {
	int bias = (1 << (exp - 1)) - 1;
	int e = b >> man & ((1 << exp) - 1), m = b & ((1 << man) - 1);
	double s = b >> (exp + man) & 1 ? -1 : 1;
	if (e == 0) return s * ldexp(m, 1 - bias - man);
	return s * ldexp(m | 1 << man, e - bias - man);
}

// Decoded values of every fp16, e4m3, e5m2 and e2m1 pattern, built on
// first use: decoding per element dominates the fake's GEMM otherwise.
static double t16[65536], t43[256], t52[256], t21[16];
static int tables_built;

static void build_tables(void) {
	for (int i = 0; i < 65536; i++) t16[i] = half_value((uint16_t)i);
	for (int i = 0; i < 256; i++) t43[i] = mini(i, 4, 3), t52[i] = mini(i, 5, 2);
	for (int i = 0; i < 16; i++) t21[i] = mini(i, 2, 1);
	tables_built = 1;
}

// type_bits is the stored width of an element of type.
static int type_bits(int type) {
	switch (type) {
	case R64F: return 64;
	case R32F: case R32I: return 32;
	case R16F: case R16BF: return 16;
	case E2M1: return 4;
	case E2M3: case E3M2: return 6;
	}
	return 8;
}

static double elem(const void* p, int type, uint64_t i) {
	if (!tables_built) build_tables();
	switch (type) {
	case R32F: { float f; memcpy(&f, (const char*)p + 4 * i, 4); return f; }
	case R64F: { double f; memcpy(&f, (const char*)p + 8 * i, 8); return f; }
	case R16F: { uint16_t h; memcpy(&h, (const char*)p + 2 * i, 2); return t16[h]; }
	case R16BF: { uint16_t h; memcpy(&h, (const char*)p + 2 * i, 2); uint32_t u = (uint32_t)h << 16; float f; memcpy(&f, &u, 4); return f; }
	case R8I: return ((const int8_t*)p)[i];
	case R32I: { int32_t v; memcpy(&v, (const char*)p + 4 * i, 4); return v; }
	case E4M3: return t43[((const uint8_t*)p)[i]];
	case E5M2: return t52[((const uint8_t*)p)[i]];
	case E2M1: return t21[((const uint8_t*)p)[i / 2] >> (i & 1) * 4 & 0xf];
	}
	return NAN;
}

static uint16_t half_bits(float f) {
	// Round to nearest even through double arithmetic on the value.
	double a = fabs(f);
	uint16_t s = signbit(f) ? 0x8000 : 0;
	if (a >= 65520) return s | 0x7c00;
	if (a < ldexp(1, -14)) return s | (uint16_t)nearbyint(a / ldexp(1, -24));
	int e;
	frexp(a, &e); // a = f·2^e, f in [0.5, 1)
	double q = nearbyint(a / ldexp(1, e - 11));
	if (q == 2048) { q = 1024; e++; }
	return s | (uint16_t)((e + 14) << 10) | ((uint16_t)q & 0x3ff);
}

static void store(void* p, int type, uint64_t i, double v) {
	switch (type) {
	case R32F: { float f = (float)v; memcpy((char*)p + 4 * i, &f, 4); return; }
	case R64F: memcpy((char*)p + 8 * i, &v, 8); return;
	case R16F: { uint16_t h = half_bits((float)v); memcpy((char*)p + 2 * i, &h, 2); return; }
	case R16BF: {
		float f = (float)v;
		uint32_t u;
		memcpy(&u, &f, 4);
		uint16_t h = (uint16_t)((u + 0x7fff + (u >> 16 & 1)) >> 16);
		memcpy((char*)p + 2 * i, &h, 2);
		return;
	}
	case R32I: { int32_t x = (int32_t)(int64_t)v; memcpy((char*)p + 4 * i, &x, 4); return; }
	}
}

static double scalar(int type, const void* p) {
	if (p == NULL) return 1;
	switch (type) {
	case R16F: return elem(p, R16F, 0);
	case R64F: return elem(p, R64F, 0);
	case R32I: return elem(p, R32I, 0);
	}
	return elem(p, R32F, 0);
}

// at is op(X)(r, c) for a layout stored column-major, transposed or not.
static double at(const void* x, const layout* l, int trans, uint64_t r, uint64_t c) {
	return trans ? elem(x, l->type, c + r * l->ld) : elem(x, l->type, r + c * l->ld);
}

// block_scale is the scale of element (row, kk) of a block-scaled operand.
static double block_scale(const void* s, int mode, uint64_t row, uint64_t kk, uint64_t k) {
	if (mode == 0) return 1;
	uint64_t blk = mode == 1 ? 16 : 32, nb = (k / blk + 3) / 4 * 4;
	uint8_t code = ((const uint8_t*)s)[row * nb + kk / blk];
	return mode == 1 ? mini(code, 4, 3) : ldexp(1, (int)code - 127);
}

int cublasLtMatmul(void* h, desc* d, const void* alpha, const void* A, layout* la, const void* B, layout* lb,
                   const void* beta, const void* C, layout* lc, void* D, layout* ld, const algo_t* algo, void* ws,
                   size_t wsBytes, void* stream) {
	if (algo == NULL || algo->data[0] < 42 || algo->data[0] > 42 + 9) return INVALID;
	int ai = (int)(algo->data[0] - 42);
	if (!offered(d, la, lb, lc)) return NOT_SUPPORTED;
	if (slow(ai)) {
		if (model_clock()) model_now += 0.02;
		else nanosleep(&(struct timespec){0, 20000000}, NULL);
	}
	int corrupt = strcmp(mode(), "wrong") == 0 || (strcmp(mode(), "wrong1") == 0 && ai == 1);
	uint64_t m = ld->rows, n = ld->cols, k = d->transa ? la->rows : la->cols;
	double al = scalar(d->scale, alpha), be = scalar(d->scale, beta);
	int block = d->amode != 0;
	if (!block) {
		if (d->ascale) al *= elem(d->ascale, R32F, 0);
		if (d->bscale) al *= elem(d->bscale, R32F, 0);
	}
	if (model_clock()) {
		double ops = 2.0 * m * n * k + env_num("FAKE_LT_HIDDEN", 0) * m * n;
		double bytes = (type_bits(la->type) * (double)m * k + type_bits(lb->type) * (double)n * k + type_bits(ld->type) * (double)m * n) / 8;
		model_now += fmax(ops / env_num("FAKE_LT_PEAK", 1e9), bytes / env_num("FAKE_LT_BW", 1e9));
	}
	for (uint64_t j = 0; j < n; j++) {
		for (uint64_t i = 0; i < m; i++) {
			double acc = 0;
			for (uint64_t kk = 0; kk < k; kk++) {
				double a = at(A, la, d->transa, i, kk), b = at(B, lb, d->transb, kk, j);
				if (block) a *= block_scale(d->ascale, d->amode, i, kk, k), b *= block_scale(d->bscale, d->bmode, j, kk, k);
				acc += a * b;
			}
			double v = al * acc + (be != 0 ? be * elem(C, lc->type, i + j * lc->ld) : 0);
			if (corrupt && i == m / 2 && j == n / 3) v += fabs(v) / 2 + 1;
			store(D, ld->type, i + j * ld->ld, v);
		}
	}
	return 0;
}

// C kernels of package cpubench. Go cannot vectorise, so the FMA chains are
// written with GCC vector extensions (which lower to SSE2/AVX2/AVX-512 on
// amd64 and NEON on arm64) and compiled once per ISA path with target
// attributes; cb_isa_supported picks at run time what the CPU can execute.
//
// a*b+c is contracted into one fused instruction where the target has FMA:
// GCC's default in GNU C mode is -ffp-contract=fast, and clang's default
// contracts within an expression. (-ffp-contract=fast itself is not on cgo's
// #cgo CFLAGS allowlist.) The fused flag in each shape states what the
// compiler was expected to emit; fma.go verifies it numerically at run time.

#include <string.h>
#include "kernels.h"

// Loop-idiom recognition must not turn the copy and write loops into
// library calls (glibc's memcpy switches to non-temporal stores on large
// sizes, which is not the loop BabelStream times).
#if defined(__clang__)
#define CB_NO_IDIOM __attribute__((no_builtin("memcpy", "memset")))
#elif defined(__GNUC__)
#define CB_NO_IDIOM __attribute__((optimize("no-tree-loop-distribute-patterns")))
#else
#define CB_NO_IDIOM
#endif

typedef double v2d __attribute__((vector_size(16)));
typedef float v4f __attribute__((vector_size(16)));

// CB_FMA_KERNEL defines NAME, which runs iters steps of x = x*a + x on
// CHAINS independent accumulators of vector (or scalar) type T with element
// type S, reading them from and writing them back to io. The accumulator is
// the addend, so NEON's FMLA (which overwrites its addend) needs no register
// moves. The chains are independent so that FMA latency is hidden; the
// iteration count arrives at run time and the results leave through io, so
// nothing can be folded away.
#define CB_FMA_KERNEL(NAME, ATTR, T, S, CHAINS)                \
	ATTR static void NAME(void *io, double a, int64_t iters) { \
		T acc[CHAINS];                                     \
		const S sa = (S)a;                                 \
		memcpy(acc, io, sizeof acc);                       \
		for (int64_t i = 0; i < iters; i++) {              \
			_Pragma("GCC unroll 32")                   \
			for (int j = 0; j < (CHAINS); j++)         \
				acc[j] = acc[j] * sa + acc[j];     \
		}                                                  \
		memcpy(io, acc, sizeof acc);                       \
	}

// CB_SCALAR keeps GCC's SLP vectoriser from packing the scalar chains into
// vectors, which would turn the scalar kernel into a vector one.
#if defined(__GNUC__) && !defined(__clang__)
#define CB_SCALAR __attribute__((optimize("no-tree-slp-vectorize")))
#else
#define CB_SCALAR
#endif

typedef void (*cb_fma_fn)(void *io, double a, int64_t iters);

typedef struct {
	cb_fma_fn fn;
	cb_shape shape;
} cb_entry;

#define CB_ENTRY(FN, LANES, CHAINS, FUSED, BYTES) \
	{ FN, { LANES, CHAINS, FUSED, BYTES } }

#if defined(__x86_64__)

typedef double v4d __attribute__((vector_size(32)));
typedef float v8f __attribute__((vector_size(32)));
typedef double v8d __attribute__((vector_size(64)));
typedef float v16f __attribute__((vector_size(64)));

#define CB_AVX2 __attribute__((target("avx2,fma")))
#define CB_AVX512 __attribute__((target("avx512f,fma")))
#define CB_FMA3 __attribute__((target("fma"))) CB_SCALAR

// 16 vector registers (SSE2, AVX2): 12 chains plus a and b.
// 32 registers (AVX-512): 24 chains.
CB_FMA_KERNEL(fma_sse2_s64, CB_SCALAR, double, double, 12)
CB_FMA_KERNEL(fma_sse2_v64, , v2d, double, 12)
CB_FMA_KERNEL(fma_sse2_v32, , v4f, float, 12)
CB_FMA_KERNEL(fma_fma3_s64, CB_FMA3, double, double, 12)
CB_FMA_KERNEL(fma_avx2_v64, CB_AVX2, v4d, double, 12)
CB_FMA_KERNEL(fma_avx2_v32, CB_AVX2, v8f, float, 12)
CB_FMA_KERNEL(fma_avx512_v64, CB_AVX512, v8d, double, 24)
CB_FMA_KERNEL(fma_avx512_v32, CB_AVX512, v16f, float, 24)

static const cb_entry cb_table[CB_ISA_COUNT][CB_FMA_KINDS] = {
	[CB_ISA_SSE2] = {
		CB_ENTRY(fma_sse2_s64, 1, 12, 0, 8),
		CB_ENTRY(fma_sse2_v64, 2, 12, 0, 8),
		CB_ENTRY(fma_sse2_v32, 4, 12, 0, 4),
	},
	[CB_ISA_AVX2FMA] = {
		CB_ENTRY(fma_fma3_s64, 1, 12, 1, 8),
		CB_ENTRY(fma_avx2_v64, 4, 12, 1, 8),
		CB_ENTRY(fma_avx2_v32, 8, 12, 1, 4),
	},
	[CB_ISA_AVX512F] = {
		CB_ENTRY(fma_fma3_s64, 1, 12, 1, 8),
		CB_ENTRY(fma_avx512_v64, 8, 24, 1, 8),
		CB_ENTRY(fma_avx512_v32, 16, 24, 1, 4),
	},
};

int cb_isa_supported(int isa) {
	__builtin_cpu_init();
	switch (isa) {
	case CB_ISA_SSE2:
		return 1;
	case CB_ISA_AVX2FMA:
		return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
	case CB_ISA_AVX512F:
		return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("fma");
	}
	return 0;
}

#elif defined(__aarch64__)

// 32 NEON registers; up to four 128-bit FMA pipes of latency 4 need 16
// chains, so 24 leave room.
CB_FMA_KERNEL(fma_neon_s64, CB_SCALAR, double, double, 24)
CB_FMA_KERNEL(fma_neon_v64, , v2d, double, 24)
CB_FMA_KERNEL(fma_neon_v32, , v4f, float, 24)

static const cb_entry cb_table[CB_ISA_COUNT][CB_FMA_KINDS] = {
	[CB_ISA_NEON] = {
		CB_ENTRY(fma_neon_s64, 1, 24, 1, 8),
		CB_ENTRY(fma_neon_v64, 2, 24, 1, 8),
		CB_ENTRY(fma_neon_v32, 4, 24, 1, 4),
	},
};

int cb_isa_supported(int isa) { return isa == CB_ISA_NEON; }

#else

// Any other architecture: scalar only, and whether it fuses is unknown
// until fma.go's probe says so.
CB_FMA_KERNEL(fma_scalar_s64, CB_SCALAR, double, double, 8)

static const cb_entry cb_table[CB_ISA_COUNT][CB_FMA_KINDS] = {
	[CB_ISA_SCALAR] = {
		CB_ENTRY(fma_scalar_s64, 1, 8, -1, 8),
	},
};

int cb_isa_supported(int isa) { return isa == CB_ISA_SCALAR; }

#endif

static const cb_entry *cb_lookup(int isa, int kind) {
	if (isa < 0 || isa >= CB_ISA_COUNT || kind < 0 || kind >= CB_FMA_KINDS)
		return 0;
	if (!cb_isa_supported(isa) || cb_table[isa][kind].fn == 0)
		return 0;
	return &cb_table[isa][kind];
}

// cb_fma_shape fills out for a kernel; -1 when the path lacks it.
int cb_fma_shape(int isa, int kind, cb_shape *out) {
	const cb_entry *e = cb_lookup(isa, kind);
	if (e == 0)
		return -1;
	*out = e->shape;
	return 0;
}

// cb_fma_run runs a kernel on acc (lanes*chains values); -1 when the path
// lacks it.
int cb_fma_run(int isa, int kind, void *acc, double a, int64_t iters) {
	const cb_entry *e = cb_lookup(isa, kind);
	if (e == 0)
		return -1;
	e->fn(acc, a, iters);
	return 0;
}

// Streaming kernels, BabelStream semantics on float64 arrays, 16-byte
// vectors (the baseline of both amd64 and arm64). n is a multiple of 8.

static inline v2d cb_load(const double *p) {
	v2d v;
	memcpy(&v, p, sizeof v);
	return v;
}

static inline void cb_store(double *p, v2d v) { memcpy(p, &v, sizeof v); }

CB_NO_IDIOM void cb_stream_copy(const double *restrict a, double *restrict c, int64_t n) {
	for (int64_t i = 0; i < n; i += 4) {
		cb_store(c + i, cb_load(a + i));
		cb_store(c + i + 2, cb_load(a + i + 2));
	}
}

void cb_stream_triad(double *restrict a, const double *restrict b, const double *restrict c,
		     double s, int64_t n) {
	for (int64_t i = 0; i < n; i += 4) {
		cb_store(a + i, cb_load(b + i) + s * cb_load(c + i));
		cb_store(a + i + 2, cb_load(b + i + 2) + s * cb_load(c + i + 2));
	}
}

// cb_stream_read sums with eight lanes of partial sums (four vectors), so
// the add latency does not bound it.
double cb_stream_read(const double *restrict a, int64_t n) {
	v2d s0 = {0, 0}, s1 = {0, 0}, s2 = {0, 0}, s3 = {0, 0};
	for (int64_t i = 0; i < n; i += 8) {
		s0 += cb_load(a + i);
		s1 += cb_load(a + i + 2);
		s2 += cb_load(a + i + 4);
		s3 += cb_load(a + i + 6);
	}
	v2d s = (s0 + s1) + (s2 + s3);
	return s[0] + s[1];
}

// cb_stream_write stores start+i at x[i]; the values are exact integers
// plus start, computed with independent vector adds.
CB_NO_IDIOM void cb_stream_write(double *restrict x, double start, int64_t n) {
	v2d v0 = {start, start + 1}, v1 = {start + 2, start + 3};
	for (int64_t i = 0; i < n; i += 4) {
		cb_store(x + i, v0);
		cb_store(x + i + 2, v1);
		v0 += 4;
		v1 += 4;
	}
}

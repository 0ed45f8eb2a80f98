// C kernels of package cpubench: FMA throughput chains with run-time ISA
// dispatch, and the four streaming bandwidth loops. See kernels.c.
#ifndef CPUBENCH_KERNELS_H
#define CPUBENCH_KERNELS_H

#include <stdint.h>

// ISA paths. Which exist depends on the architecture the package was built
// for; cb_isa_supported says which the running CPU can execute.
enum {
	CB_ISA_SCALAR = 0,  // any other architecture: scalar C only
	CB_ISA_SSE2 = 1,    // amd64 baseline: 128-bit vectors, no FMA
	CB_ISA_AVX2FMA = 2, // amd64 with AVX2 and FMA3: 256-bit vectors
	CB_ISA_AVX512F = 3, // amd64 with AVX-512F: 512-bit vectors
	CB_ISA_NEON = 4,    // arm64 Advanced SIMD: 128-bit vectors, FMLA
	CB_ISA_COUNT = 5
};

// FMA kernels: one chain of x = x*a + x per lane per accumulator.
enum {
	CB_FMA_SCALAR_F64 = 0,
	CB_FMA_VECTOR_F64 = 1,
	CB_FMA_VECTOR_F32 = 2,
	CB_FMA_KINDS = 3
};

// Shape of one FMA kernel on one ISA path.
typedef struct {
	int32_t lanes;      // lanes per accumulator (1 for scalar)
	int32_t chains;     // independent accumulators
	int32_t fused;      // 1 when a*b+c is one fused instruction
	int32_t elem_bytes; // bytes per lane value: 8 (fp64) or 4 (fp32)
} cb_shape;

int cb_isa_supported(int isa);
int cb_fma_shape(int isa, int kind, cb_shape *out);
int cb_fma_run(int isa, int kind, void *acc, double a, int64_t iters);

void cb_stream_copy(const double *a, double *c, int64_t n);
void cb_stream_triad(double *a, const double *b, const double *c, double s, int64_t n);
double cb_stream_read(const double *a, int64_t n);
void cb_stream_write(double *x, double start, int64_t n);

#endif

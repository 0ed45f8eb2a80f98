// Package cublaslt is the vendor-BLAS GEMM probe (the design's backend 3)
// for NVIDIA: it loads cuBLASLt and the CUDA driver at run time (no CUDA
// toolkit or header is needed to build), asks the library which type
// combinations it runs on a device (cublasLtMatmulAlgoGetHeuristic; no
// algorithm means not offered, recorded with the library's answer), and
// times and checks a GEMM for each one it offers. For each, the heuristic
// is asked for several algorithms; each is timed briefly and its output
// checked, and the fastest is kept and recorded (Entry.Algorithm): the
// figure is the best the library offers, not its first estimate.
//
// Start with Open (where the library is looked for: LoadOptions), then
// Library.Run, which returns a Report with one Entry per Precision. The
// Report, Entry, Options and Backend types carry nothing NVIDIA-specific,
// so a hipBLASLt probe can return the same shape; the CUDA enums are in
// enums.go, cuBLASLt's loader in ltapi_linux.c and the driver's in
// internal/platform/cuda.
//
// Every GEMM is D = A·B with A stored m×k and B stored n×k, K contiguous
// (cuBLASLt's TN layout, which Hopper's fp8 and int8 kernels require).
// Inputs are random, rounded to their type on the host; the output of
// the last timed GEMM is compared with a float64 CPU reference from the
// same rounded inputs (check.go). A failing check is an error, never a
// figure. Timing uses CUDA events on one stream: a warm-up of
// Options.WarmUp before the first precision, and for each precision a
// hold of Options.Hold with the algorithm it kept right before its timed
// samples (the defaults' time budget is in result.go).
//
// The tests run the whole probe against a fake cuBLASLt and libcuda built
// from testdata/fakelt.c, which computes on the CPU. TestHardware, the
// benchmark harness bench/blas.sh runs on a GPU host, builds only with
// the explore tag and runs the real library when APPRAISE_CUBLASLT_HW=1.
package cublaslt

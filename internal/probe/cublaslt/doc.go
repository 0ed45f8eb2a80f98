// Package cublaslt is the vendor-BLAS GEMM probe for NVIDIA. It loads
// cuBLASLt and the CUDA driver at run time (building needs no CUDA toolkit),
// asks the library which type combinations it runs on a device, and times
// and checks a GEMM for each: the fastest of the algorithms its heuristic
// proposes, held under load right before its timed samples. A failed check
// is an error, never a figure.
//
// Start with Open, then Library.Run, which returns a Report with one Entry
// per Precision. Every GEMM is D = A·B with A stored m×k and B stored n×k,
// K contiguous (cuBLASLt's TN layout).
package cublaslt

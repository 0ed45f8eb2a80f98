// Package cublaslt is the vendor-BLAS GEMM probe for NVIDIA, loading
// cuBLASLt and the CUDA driver at run time. Start with Open, then
// Library.Run. Every GEMM is D = A·B in cuBLASLt's TN layout; a failed
// check is an error, never a figure.
package cublaslt

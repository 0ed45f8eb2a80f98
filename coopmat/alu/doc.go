// Package alu measures vector-ALU throughput through raw Vulkan for the
// precisions WebGPU's compiler cannot reach (fp64 and fp16 FMA, packed
// 8-bit dot products), checking every kernel's output exactly.
// VectorProbes are the probes the appraisal runs; RunFMA64, RunFMA16 and
// RunDot4 measure the kernels.
package alu

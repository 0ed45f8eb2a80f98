// Package alu measures vector-ALU throughput through raw Vulkan, for the
// precisions WebGPU's compiler cannot reach, verifying every kernel's
// output exactly against a CPU reference.
//
// Where to start:
//
//   - VectorProbes (probe_vector.go) are the probes
//     (probe.Probe[*vk.Device]) the appraisal runs: each turns one
//     kernel's checked figure into the card's precision entry.
//   - RunFMA64, RunFMA16 and RunDot4 measure the kernels: fp64 FMA
//     (fma.go), fp16 FMA on packed vectors (fma16.go) and packed 4×8-bit
//     dot products (dot4.go), run and checked exactly by vector.go.
//   - Options are the shared vk.Options (timing, seed, invocations,
//     steps, progress).
//
// The kernels are emitted with vk.Builder and run by
// vk.Device.RunKernel; the device itself comes from vk.Open.
package alu

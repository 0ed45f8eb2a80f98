// Package coopmat measures matrix-engine throughput through Vulkan's
// VK_KHR_cooperative_matrix, checking every GEMM against a CPU reference.
// CoopMatProbe is the probe the appraisal runs with --coopmat; Run measures
// every shape the device offers, each by a short measured search over
// tile candidates, and Roofline sweeps one result's reduction length.
package coopmat

// Package vk is the raw-Vulkan runtime the Vulkan probes share. Open a device
// with Open, allocate buffers in the memory types a probe needs, build compute
// kernels from SPIR-V (Builder, NewKernel) and time them with Measure, which
// runs the warm-up and every sample in one command buffer, timed by GPU
// timestamps. Release what you open. Every Result has passed its Check; a
// failed check is an error wrapping ErrCheckFailed and never a figure.
//
// What github.com/vulkan-go/vulkan lacks (the *2 queries, cooperative
// matrices and a few extensions) is declared here through cgo.
package vk

// Package vk is the raw-Vulkan runtime the Vulkan probes share: Open a
// device, build kernels (Builder, NewKernel) and time them with Measure.
// Release what you open. A failed check is an error wrapping
// ErrCheckFailed, never a figure.
package vk

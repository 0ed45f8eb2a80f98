// Package vk is the raw-Vulkan runtime the Vulkan probes share: it
// opens a device, allocates buffers in the memory types a probe asks for,
// builds compute kernels from SPIR-V words, submits and times them, and
// holds the result and check types every probe reports.
//
// Where to start:
//
//   - Open(index) opens a Vulkan device (Devices lists them); DeviceInfo says
//     what the driver reports (IDs, driver, PCI address, heaps, subgroup
//     size, timestamps, extensions). Release what you open. DeviceGroups
//     and SharedGroup say which devices Vulkan links (groups.go).
//   - Device.Shapes lists every cooperative-matrix shape the driver offers;
//     without the extension it returns an error wrapping ErrExtensionMissing.
//   - Buffers (buffer.go, hostimport.go): device-local, host-visible,
//     device-mapped and imported host memory, each in the memory type its
//     user needs.
//   - Kernels (kernel.go, builder.go): Builder emits a compute module with
//     coopmat/spirv; Device.NewKernel and NewKernelOpts make its pipeline;
//     Device.RunKernel and RunGEMM upload inputs, run and read back.
//   - Command submission and timing (command.go, timing.go): the warm-up
//     and all samples of a kernel run in one command buffer, timed by GPU
//     timestamps between them, so the device sees no host-side gap from
//     warm-up to the last sample.
//   - HeapUsage reads a device-local heap's usage and budget afresh
//     (VK_EXT_memory_budget), to tell which device an allocation landed on.
//   - Every Result has passed its check (Check); a failed check is an error
//     wrapping ErrCheckFailed and never yields a figure. Precision and
//     Check.Record turn them into the card's entries (card.go).
//
// The probes that run on it each implement probe.Probe[*vk.Device]:
// coopmat above it (CoopMatProbe: cooperative-matrix GEMMs and their
// rooflines), and coopmat/alu (VectorProbes: fp64 and fp16 FMA,
// packed dot products) and coopmat/link (HostLinkProbe: the host
// link and launch).
//
// vkext.go, vkext_device.go and vkext.h fill what
// github.com/vulkan-go/vulkan lacks (no other file uses cgo); vkext.go
// loads libvulkan.so.1 itself.
package vk

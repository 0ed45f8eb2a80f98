// Package vulkan measures matrix-engine throughput through Vulkan's
// VK_KHR_cooperative_matrix, and vector-ALU throughput through the same raw
// Vulkan path, verifying every kernel's output against a CPU reference.
//
// Where to start:
//
//   - Open(index) opens a Vulkan device (Devices lists them); DeviceInfo says
//     what the driver reports (IDs, driver, PCI address, heaps, subgroup
//     size, timestamps, extensions). Release what you open.
//   - Device.Shapes lists every cooperative-matrix shape the driver offers;
//     without the extension it returns an error wrapping ErrExtensionMissing.
//   - Run measures every shape: a short measured tile search (never a table
//     of device names), then the chosen tile at Options.Size. The vector-ALU
//     kernels (fp64 and fp16 FMA, packed dot products) are in the alu
//     sub-package; the kernels build on Builder (builder.go) and run through
//     Device.RunKernel (kernel.go).
//   - The probes (probe.Probe[*Device]) turn those figures into the card's,
//     each carrying the check its kernel passed: alu.VectorProbes,
//     HostLinkProbe (probe_link.go: the host link and
//     launch, MeasureTransfer in transfer*.go) and CoopMatProbe
//     (probe_coopmat.go: the GEMMs and their K-sweep rooflines).
//   - HeapUsage reads a device-local heap's usage and budget afresh
//     (VK_EXT_memory_budget), to tell which device an allocation landed on.
//   - Every Result has passed its check (Check); a failed check is an error
//     wrapping ErrCheckFailed and never yields a figure.
//   - Timing (timing.go): the warm-up and all samples of a kernel run in one
//     command buffer, timed by GPU timestamps between them, so the device
//     sees no host-side gap from warm-up to the last sample.
//   - The GEMM kernel: cmkernel.go (tile and layout), cmbuild.go (emitter),
//     cmrun.go (candidates, search, run, check).
//
// Kernels are emitted as SPIR-V words by internal/spirv (no shader
// compiler). vkext.go, vkext_device.go and vkext.h fill what
// github.com/vulkan-go/vulkan lacks (no other file uses cgo); vkext.go
// loads libvulkan.so.1 itself.
//
// The research harness (whole-space tile searches, kernel variants, the
// Vulkan peer's module, every host-link path at full size) is in
// explore_*_test.go behind the explore build tag: go test -c -tags explore
// builds the bin/coopmat.test that bench/coopmat.sh and bench/vkpeer.sh run.
package vulkan

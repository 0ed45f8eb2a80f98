// Package coopmat measures matrix-engine throughput through Vulkan's
// VK_KHR_cooperative_matrix, verifying every GEMM's output against a CPU
// reference. It runs on the thin raw-Vulkan runtime beneath it, coopmat/vk,
// which emits kernels with the SPIR-V emitter coopmat/spirv.
//
// Where to start:
//
//   - CoopMatProbe (probe_coopmat.go) is the probe
//     (probe.Probe[*vk.Device]) the appraisal runs with --coopmat: the
//     GEMMs and their K-sweep rooflines, each carrying the check it passed.
//   - Run measures every shape the device offers (vk.Device.Shapes): a
//     short list of tile candidates chosen from the shape's types and the
//     device's reported limits (coopCandidates; never a table of device
//     names), each measured and checked, then the
//     chosen tile at Options.Size. Roofline sweeps one result's reduction
//     length.
//   - The kernel: cmkernel.go (tile and layout), cmbuild.go (emitter on
//     vk.Builder), cmrun.go (candidates, search, run), check.go and
//     operand.go (inputs and the check against the CPU reference),
//     cmrunguard.go (which tiles a search may still try).
//
// The research (whole-space tile searches, kernel variants, leads, the
// Vulkan peer's module) is explore*.go, behind the explore build tag so
// that the product build never holds it (ExploreShape, ExploreVariants,
// ExploreLead, ExplorePeerModule), driven by bench/coopmat: go test -c
// -tags explore -o bin/coopmat.test ./bench/coopmat/ builds the binary
// bench/coopmat.sh and bench/vkpeer.sh run.
package coopmat

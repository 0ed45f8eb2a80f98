// Package gpu measures what a GPU can do through WebGPU (cogentcore/webgpu,
// wgpu-native; the Vulkan backend on Linux) and checks every figure before it
// counts.
//
// Start with NewInstance and (*Instance).Adapters to list the adapters,
// then Open one with Options to get a *Device. The probes take that device:
//
//	MeasureBandwidth  read, write, copy and triad bandwidth (bandwidth.go)
//	MeasureLaunch     empty-dispatch round trip and 1 MiB upload (launch.go)
//	MeasureHostLink   host → device and device → host bandwidth (hostlink.go)
//	MeasureCapacity   usable device memory, allocated until refused (capacity.go)
//
// Each probe lives in its own file beside its kernel in package wgsl
// (bandwidth.go runs wgsl/bandwidth.wgsl) and carries a CPU reference of the
// same arithmetic (bandwidth_ref.go). A kernel whose output disagrees with
// the reference makes the probe return an error wrapping ErrCheckFailed,
// never a number.
//
// How work is timed: (*Device).Timing says whether kernels are timed with
// GPU timestamp queries (only when the device offers them and they agree
// with the host clock, see timing.go) or with the host's monotonic clock
// from submit until the queue reports the work done. Work sizes come from
// the device's reported limits, Options.MemoryLimit and a short timed
// calibration (calibrate.go), never from the device's name.
//
// wgpu_gap.go holds the few calls made to wgpu-native directly, where the
// binding cannot be used safely: creating the instance, requesting the
// device with callbacks that turn uncaptured errors and device loss into
// errors (ErrDeviceLost) instead of an abort, and error scopes that turn an
// allocation the driver refuses into ErrOutOfMemory.
//
// Everything a call creates on the device is released before it returns;
// Release on an Instance or Device is safe to call twice. A Device is not
// safe for concurrent use.
package webgpu

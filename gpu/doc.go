// Package gpu measures what a GPU can do through WebGPU
// (cogentcore/webgpu, wgpu-native; the Vulkan backend on Linux) and checks
// every figure before it counts.
//
// Start with NewInstance and (*Instance).Adapters to list the adapters,
// then Open one with Options to get a *Device. The probes take that device;
// each implements probe.Probe[*Device] (probes.go, probes_mem.go,
// roofline_schema.go, soak_probe.go) and returns its figures, each with
// the check its kernel passed, as a probe.Contribution:
//
//	StreamProbe     read, write, copy and triad bandwidth (MeasureBandwidthKernels)
//	ALUProbe        vector-ALU throughput per precision (MeasureALUKernels)
//	RooflineProbe   an arithmetic-intensity sweep per precision (MeasureRoofline)
//	CapacityProbe   usable device memory, allocated until refused (MeasureCapacity)
//	IntegrityProbe  memtest patterns over the usable memory (MeasureIntegrity)
//	SoakProbe       the thermal envelope under sustained FMA load (Soak)
//
// StreamProbe, ALUProbe and RooflineProbe are probe.PartProbes: they can
// measure some of their kernels or precisions again alone.
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
// wgpu_gap.go and wgpu_scope.go (their C side in wgpu_gap.h and
// wgpu_gap.c) hold the few calls made to wgpu-native directly, where the
// binding cannot be used safely: creating the instance, requesting the
// device with callbacks that turn uncaptured errors and device loss into
// errors (ErrDeviceLost) instead of an abort, and error scopes that turn an
// allocation the driver refuses into ErrOutOfMemory.
//
// Everything a call creates on the device is released before it returns;
// Release on an Instance or Device is safe to call twice. A Device is not
// safe for concurrent use.
package gpu

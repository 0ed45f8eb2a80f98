package schema

// CapabilityVector is what one physical device was measured to do. Every
// figure in it was measured by a probe and checked against a reference
// before it was recorded; nothing in it is rated or looked up by model.
//
// Optional sections (and optional fields inside sections) are omitted when
// they were not measured, and each omission is listed in NotMeasured with a
// reason. A made-up zero never stands in for a missing measurement.
type CapabilityVector struct {
	// Precisions holds sustained throughput per precision and operation.
	Precisions []PrecisionThroughput `json:"precisions,omitempty" validate:"omitempty,dive"`
	// Memory describes the device's own memory. Omitted when not measured.
	Memory *Memory `json:"memory,omitempty" validate:"omitempty"`
	// Interconnect holds host and peer link measurements. Omitted when not measured.
	Interconnect *Interconnect `json:"interconnect,omitempty" validate:"omitempty"`
	// LaunchOverhead holds small-work latencies. Omitted when not measured.
	LaunchOverhead *LaunchOverhead `json:"launch_overhead,omitempty" validate:"omitempty"`
	// Thermal is the thermal envelope under sustained load. Omitted when not measured.
	Thermal *ThermalEnvelope `json:"thermal,omitempty" validate:"omitempty"`
	// Roofline holds the on-roofline ratio per precision. Omitted when not measured.
	Roofline []RooflineRatio `json:"roofline,omitempty" validate:"omitempty,dive"`
	// CrossChecks compare figures with standard tools run on the same
	// device. Omitted when no cross-check ran.
	CrossChecks []CrossCheck `json:"cross_checks,omitempty" validate:"omitempty,dive"`
	// Identity is anti-fraud metadata. It is never an input to scoring.
	Identity DeviceIdentity `json:"identity"`
	// Environment says under which conditions the figures were taken.
	Environment ProbeEnvironment `json:"environment"`
	// Probes lists every probe that contributed a figure, with its version.
	Probes []ProbeRecord `json:"probes" validate:"min=1,dive"`
	// NotMeasured lists each section or field that is absent, with why.
	NotMeasured []Omission `json:"not_measured,omitempty" validate:"omitempty,dive"`
	// Skipped lists work a probe could not do on this device (a matrix
	// shape, a precision), with why, so an absent figure is explained.
	Skipped []Skip `json:"skipped,omitempty" validate:"omitempty,dive"`
	// Consistency holds every comparison of two figures of the card that
	// measure the same thing (ConsistencyCheck), each with its rule and
	// verdict. Only a software adapter's card may carry a disagreeing
	// one; a GPU's card is not signed then. Omitted by writers older than
	// this field.
	Consistency []ConsistencyCheck `json:"consistency,omitempty" validate:"omitempty,dive"`
}

// Skip records one piece of work a probe did not do on this device.
type Skip struct {
	// Probe is the probe that skipped it.
	Probe string `json:"probe" validate:"required,ident"`
	// Item names what was skipped, e.g. "gemm 16x16x32 fp8_e4m3".
	Item string `json:"item" validate:"required,max=128"`
	// Reason says precisely why.
	Reason string `json:"reason" validate:"required,max=500"`
}

// Omission records a section or field that was not measured, and why.
type Omission struct {
	// Field is the JSON path of the absent section or field, dot separated
	// from the capability object, e.g. "thermal" or "memory.usable_bytes".
	Field string `json:"field" validate:"required,jsonpath"`
	// Reason says in plain words why it is absent.
	Reason string `json:"reason" validate:"required,max=500"`
}

// ProbeRecord names a probe that contributed figures to the vector.
type ProbeRecord struct {
	// Name of the probe, e.g. "webgpu-stream".
	Name string `json:"name" validate:"required,ident"`
	// Version of the probe's method; figures from different versions are
	// not directly comparable.
	Version string `json:"version" validate:"required,max=32"`
}

// Check records the reference check a figure passed before it counted.
// A figure whose check failed is never recorded, so Passed is always true
// in a valid report; it is kept so a reader sees the check was made.
type Check struct {
	// Reference names what the output was compared with: "cpu" for a CPU
	// reference of the same kernel, "closed-form" for an exact formula.
	Reference string `json:"reference" validate:"oneof=cpu closed-form"`
	// Elements is how many output elements were compared.
	Elements uint64 `json:"elements" validate:"gte=1,maxint53"`
	// ErrorKind says how errors are measured: "exact" (any difference
	// fails), "relative" (|got-want|/|want|) or "absolute" (|got-want|,
	// against a per-element bound derived from the operands).
	ErrorKind string `json:"error_kind" validate:"oneof=exact relative absolute"`
	// MaxError is the largest error seen, in ErrorKind's terms (0 for exact).
	MaxError float64 `json:"max_error" validate:"gte=0,ltefield=Tolerance"`
	// Tolerance is the largest error the check accepted (0 for exact).
	Tolerance float64 `json:"tolerance" validate:"gte=0"`
	// Passed is true: a failed check is never written.
	Passed bool `json:"passed" validate:"eq=true"`
}

// PrecisionThroughput is a sustained operation rate at one precision.
type PrecisionThroughput struct {
	// Operation is the measured kind of work: "fma" (vector multiply-add),
	// "dot4" (packed 4-wide dot product), "gemm" (matrix multiply).
	Operation string `json:"operation" validate:"required,ident"`
	// InputType is the element type of the operands, e.g. "fp32", "fp16",
	// "bf16", "int32", "int8", "uint8", "fp8_e4m3".
	InputType string `json:"input_type" validate:"required,ident"`
	// InputTypeB is the element type of the second operand (B) when it
	// differs from InputType, e.g. "fp8_e4m3" for an fp8_e5m2×fp8_e4m3
	// GEMM. Absent when both operands have InputType.
	InputTypeB string `json:"input_type_b,omitempty" validate:"omitempty,ident"`
	// AccumulatorType is the element type results accumulate in.
	AccumulatorType string `json:"accumulator_type" validate:"required,ident"`
	// OutputType is the element type the result is stored in, when the
	// probe states it (vendor-library GEMMs, whose output may be narrower
	// than the accumulator, e.g. fp16 stored from fp32 accumulation).
	// Absent when the result is stored in AccumulatorType.
	OutputType string `json:"output_type,omitempty" validate:"omitempty,ident"`
	// Scaling names the block scaling of the inputs for microscaled
	// formats: "block16_ue4m3" (one e4m3 scale per 16 elements along K,
	// NVFP4) or "block32_ue8m0" (one power-of-two scale per 32, the OCP
	// MX formats). Absent for unscaled inputs and for one scale per
	// operand (fp8 GEMMs).
	Scaling string `json:"scaling,omitempty" validate:"omitempty,oneof=block16_ue4m3 block32_ue8m0"`
	// MatrixEngine is true only when a matrix-engine kernel (cooperative
	// matrix or equivalent) ran and passed its check; vector-ALU figures
	// say false.
	MatrixEngine bool `json:"matrix_engine"`
	// OpsPerS is operations per second; how operations are counted is
	// given by OpCounting.
	OpsPerS Stat `json:"ops_per_s"`
	// OpCounting states the counting rule, e.g. "fma=2", "dot4=8", "gemm=2mnk".
	OpCounting string `json:"op_counting" validate:"required,max=64"`
	// Shape is the matrix shape used, for matrix-engine figures.
	Shape *MatrixShape `json:"shape,omitempty" validate:"omitempty"`
	// Kernel names the configuration of a raw-Vulkan vector kernel and,
	// where the probe measures several forms and keeps the fastest checked
	// one, the form (e.g. "fma-loaded local=256 chains=8 lanes=4 unroll=8":
	// how a driver packs fp16 FMAs depends on how they are written; for a
	// vendor library, "algorithm 1 of 4": which of the algorithms its
	// heuristic proposed was fastest).
	Kernel string `json:"kernel,omitempty" validate:"max=64"`
	// Probe is the name of the probe that measured it.
	Probe string `json:"probe" validate:"required,ident"`
	// Timing says how durations were measured.
	Timing TimingMethod `json:"timing" validate:"timing"`
	// Check is the reference check the output passed.
	Check Check `json:"check"`
}

// MatrixShape is the fragment shape and problem size of a matrix kernel.
type MatrixShape struct {
	// M, N, K are the fragment dimensions the device offered.
	M int `json:"m" validate:"gte=1"`
	N int `json:"n" validate:"gte=1"`
	K int `json:"k" validate:"gte=1"`
	// Scope is the execution scope of a fragment, e.g. "subgroup"; for a
	// vendor library's GEMM, which chooses its own fragments, "library",
	// and M, N, K are then the whole problem's dimensions.
	Scope string `json:"scope" validate:"required,ident"`
	// ProblemM, ProblemN, ProblemK are the whole GEMM's dimensions.
	ProblemM int `json:"problem_m" validate:"gte=1"`
	ProblemN int `json:"problem_n" validate:"gte=1"`
	ProblemK int `json:"problem_k" validate:"gte=1"`
	// BColumnMajor is true when B was stored column-major.
	BColumnMajor bool `json:"b_column_major"`
	// Tile is the tile configuration a measured search chose.
	Tile string `json:"tile,omitempty" validate:"max=64"`
}

// UsableOtherProcesses is Memory.UsableLimitedBy when other processes'
// memory stopped the allocation.
const UsableOtherProcesses = "other-processes"

// Memory describes the device's own memory pool.
type Memory struct {
	// PhysicalBytes is the device-local memory the driver reports.
	PhysicalBytes *uint64 `json:"physical_bytes,omitempty" validate:"omitempty,gte=1,maxint53"`
	// UsableBytes is how much could actually be allocated, in bytes.
	UsableBytes *uint64 `json:"usable_bytes,omitempty" validate:"omitempty,gte=1,maxint53"`
	// UsableLimitedBy says what stopped the allocation UsableBytes
	// counts: "driver-refused" (the driver refused even the smallest
	// chunk), "budget" (the driver's memory budget for the heap),
	// "memory-limit" (our own cap, e.g. 1 GiB on a software adapter: the
	// device could hold more), "slow-memory" (the next chunk landed in
	// memory far slower than device memory), "chunk-count" (our cap on
	// the number of chunks) or "other-processes" (the driver, slow
	// memory or the budget stopped it, and the processes
	// environment.shared_use lists held at least half of what it fell
	// short of physical_bytes by). Only "driver-refused" and "slow-memory"
	// mean the device itself was full. Absent in cards older than this
	// field.
	UsableLimitedBy string `json:"usable_limited_by,omitempty" validate:"omitempty,oneof=driver-refused budget memory-limit slow-memory chunk-count other-processes,excluded_without=UsableBytes"`
	// Bandwidth holds sustained bandwidth per kernel (read, write, copy, triad).
	Bandwidth []Bandwidth `json:"bandwidth,omitempty" validate:"omitempty,dive"`
	// Integrity is the VRAM integrity probe's outcome.
	Integrity *Integrity `json:"integrity,omitempty" validate:"omitempty"`
}

// Bandwidth is a sustained device-memory bandwidth for one kernel.
type Bandwidth struct {
	// Kernel is the access pattern: "read", "write", "copy", "triad".
	Kernel string `json:"kernel" validate:"required,ident"`
	// BytesPerS is bytes moved per second (bytes, not MiB; 1 GB/s = 1e9).
	BytesPerS Stat `json:"bytes_per_s"`
	// ArrayBytes is the size of each array the kernel streamed over.
	ArrayBytes uint64 `json:"array_bytes" validate:"gte=1,maxint53"`
	// BytesPerElement is how many bytes the kernel moves per element,
	// reads plus writes.
	BytesPerElement int `json:"bytes_per_element" validate:"gte=1"`
	// ElementsPerInvocation is how many elements each GPU invocation
	// handled, a count the probe may choose by a timed trial on the device
	// (absent for the host).
	ElementsPerInvocation int `json:"elements_per_invocation,omitempty" validate:"gte=0"`
	// Probe is the name of the probe that measured it.
	Probe string `json:"probe" validate:"required,ident"`
	// Timing says how durations were measured.
	Timing TimingMethod `json:"timing" validate:"timing"`
	// Check is the reference check the output passed.
	Check Check `json:"check"`
}

// Integrity is the outcome of the VRAM integrity probe.
type Integrity struct {
	// Errors is the number of words that read back wrong.
	Errors uint64 `json:"errors" validate:"maxint53"`
	// BytesTested is the memory covered by the patterns.
	BytesTested uint64 `json:"bytes_tested" validate:"gte=1,maxint53"`
	// Passes is how many full passes over BytesTested ran.
	Passes int `json:"passes" validate:"gte=1"`
	// Patterns names the patterns written and checked.
	Patterns []string `json:"patterns" validate:"min=1,dive,ident"`
	// UsableFraction is BytesTested over the usable memory measured in the
	// same run (unitless), when that was measured.
	UsableFraction float64 `json:"usable_fraction,omitempty" validate:"gte=0,lte=1"`
	// BytesPerS is the bytes the patterns wrote and read per second.
	BytesPerS float64 `json:"bytes_per_s" validate:"gt=0"`
	// Probe is the name of the probe that ran it.
	Probe string `json:"probe" validate:"required,ident"`
}

package schema

// CapabilityVector is what one physical device was measured to do, every
// figure checked against a reference; nothing is rated or looked up by model.
type CapabilityVector struct {
	// Precisions holds sustained throughput per precision and operation.
	Precisions []PrecisionThroughput `json:"precisions,omitempty" validate:"omitempty,dive"`
	// Memory describes the device's own memory.
	Memory *Memory `json:"memory,omitempty" validate:"omitempty"`
	// Interconnect holds host and peer link measurements.
	Interconnect *Interconnect `json:"interconnect,omitempty" validate:"omitempty"`
	// LaunchOverhead holds small-work latencies.
	LaunchOverhead *LaunchOverhead `json:"launch_overhead,omitempty" validate:"omitempty"`
	// Thermal is the thermal envelope under sustained load.
	Thermal *ThermalEnvelope `json:"thermal,omitempty" validate:"omitempty"`
	// Roofline holds the on-roofline ratio per precision.
	Roofline []RooflineRatio `json:"roofline,omitempty" validate:"omitempty,dive"`
	// CrossChecks compare figures with standard tools run on the same device.
	CrossChecks []CrossCheck `json:"cross_checks,omitempty" validate:"omitempty,dive"`
	// Identity is anti-fraud metadata, never an input to scoring.
	Identity DeviceIdentity `json:"identity"`
	// Environment says under which conditions the figures were taken.
	Environment ProbeEnvironment `json:"environment"`
	// Probes lists every probe that contributed a figure, with its version.
	Probes []ProbeRecord `json:"probes" validate:"min=1,dive"`
	// NotMeasured lists each absent optional section or field, with why.
	NotMeasured []Omission `json:"not_measured,omitempty" validate:"omitempty,dive"`
	// Skipped lists work a probe could not do on this device, with why.
	Skipped []Skip `json:"skipped,omitempty" validate:"omitempty,dive"`
	// Consistency compares figures that measure the same thing; only a
	// software adapter's card may carry a disagreeing one. Absent in older cards.
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
	// Field is the dotted JSON path from the capability object, e.g. "memory.usable_bytes".
	Field string `json:"field" validate:"required,jsonpath"`
	// Reason says in plain words why it is absent.
	Reason string `json:"reason" validate:"required,max=500"`
}

// ProbeRecord names a probe that contributed figures to the vector.
type ProbeRecord struct {
	// Name of the probe, e.g. "webgpu-stream".
	Name string `json:"name" validate:"required,ident"`
	// Version of the probe's method; figures of different versions do not compare.
	Version string `json:"version" validate:"required,max=32"`
}

// Check records the reference check a figure passed before it counted; a
// failed check is never written.
type Check struct {
	// Reference is "cpu" (a CPU reference of the kernel) or "closed-form".
	Reference string `json:"reference" validate:"oneof=cpu closed-form"`
	// Elements is how many output elements were compared.
	Elements uint64 `json:"elements" validate:"gte=1,maxint53"`
	// ErrorKind is "exact", "relative" (|got-want|/|want|) or "absolute" (|got-want|).
	ErrorKind string `json:"error_kind" validate:"oneof=exact relative absolute"`
	// MaxError is the largest error seen, in ErrorKind's terms.
	MaxError float64 `json:"max_error" validate:"gte=0,ltefield=Tolerance"`
	// Tolerance is the largest error accepted, in ErrorKind's terms.
	Tolerance float64 `json:"tolerance" validate:"gte=0"`
	// Passed is always true.
	Passed bool `json:"passed" validate:"eq=true"`
}

// PrecisionThroughput is a sustained operation rate at one precision.
type PrecisionThroughput struct {
	// Operation is the kind of work: "fma", "dot4" (4-wide dot) or "gemm".
	Operation string `json:"operation" validate:"required,ident"`
	// InputType is the operands' element type, e.g. "fp16" or "fp8_e4m3".
	InputType string `json:"input_type" validate:"required,ident"`
	// InputTypeB is the second operand's element type, when not InputType.
	InputTypeB string `json:"input_type_b,omitempty" validate:"omitempty,ident"`
	// AccumulatorType is the element type results accumulate in.
	AccumulatorType string `json:"accumulator_type" validate:"required,ident"`
	// OutputType is the element type the result is stored in, when not AccumulatorType.
	OutputType string `json:"output_type,omitempty" validate:"omitempty,ident"`
	// Scaling is the inputs' block scaling, per 16 (e4m3) or 32 (e8m0) elements along K.
	Scaling string `json:"scaling,omitempty" validate:"omitempty,oneof=block16_ue4m3 block32_ue8m0"`
	// MatrixEngine is true only when a matrix-engine kernel ran and passed its check.
	MatrixEngine bool `json:"matrix_engine"`
	// OpsPerS is operations per second, counted by OpCounting.
	OpsPerS Stat `json:"ops_per_s"`
	// OpCounting is the counting rule, e.g. "fma=2", "dot4=8", "gemm=2mnk".
	OpCounting string `json:"op_counting" validate:"required,max=64"`
	// Shape is the matrix shape, for matrix-engine figures.
	Shape *MatrixShape `json:"shape,omitempty" validate:"omitempty"`
	// Kernel names the kernel form or library algorithm kept as the fastest checked.
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
	// M, N, K are the fragment's dimensions, or the problem's for scope "library".
	M int `json:"m" validate:"gte=1"`
	N int `json:"n" validate:"gte=1"`
	K int `json:"k" validate:"gte=1"`
	// Scope is a fragment's execution scope, e.g. "subgroup", or "library".
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
	// PhysicalBytes is the device-local memory the driver reports, in bytes.
	PhysicalBytes *uint64 `json:"physical_bytes,omitempty" validate:"omitempty,gte=1,maxint53"`
	// UsableBytes is how much could actually be allocated, in bytes.
	UsableBytes *uint64 `json:"usable_bytes,omitempty" validate:"omitempty,gte=1,maxint53"`
	// UsableLimitedBy says what stopped the allocation; only "driver-refused"
	// and "slow-memory" mean the device was full, and "other-processes" that
	// the processes environment.shared_use lists held at least half of the
	// shortfall from physical_bytes. Absent in older cards.
	UsableLimitedBy string `json:"usable_limited_by,omitempty" validate:"omitempty,oneof=driver-refused budget memory-limit slow-memory chunk-count other-processes,excluded_without=UsableBytes"`
	// Bandwidth holds sustained bandwidth per kernel.
	Bandwidth []Bandwidth `json:"bandwidth,omitempty" validate:"omitempty,dive"`
	// Integrity is the VRAM integrity probe's outcome.
	Integrity *Integrity `json:"integrity,omitempty" validate:"omitempty"`
}

// Bandwidth is a sustained device-memory bandwidth for one kernel.
type Bandwidth struct {
	// Kernel is the access pattern: "read", "write", "copy", "triad".
	Kernel string `json:"kernel" validate:"required,ident"`
	// BytesPerS is bytes moved per second (1 GB/s = 1e9 bytes/s).
	BytesPerS Stat `json:"bytes_per_s"`
	// ArrayBytes is the size of each array streamed over, in bytes.
	ArrayBytes uint64 `json:"array_bytes" validate:"gte=1,maxint53"`
	// BytesPerElement is the bytes read plus written per element.
	BytesPerElement int `json:"bytes_per_element" validate:"gte=1"`
	// ElementsPerInvocation is the elements each GPU invocation handled (absent for the host).
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
	// BytesTested is the memory the patterns covered, in bytes.
	BytesTested uint64 `json:"bytes_tested" validate:"gte=1,maxint53"`
	// Passes is how many full passes over BytesTested ran.
	Passes int `json:"passes" validate:"gte=1"`
	// Patterns names the patterns written and checked.
	Patterns []string `json:"patterns" validate:"min=1,dive,ident"`
	// UsableFraction is BytesTested ÷ the usable memory measured (unitless).
	UsableFraction float64 `json:"usable_fraction,omitempty" validate:"gte=0,lte=1"`
	// BytesPerS is the bytes the patterns wrote and read per second.
	BytesPerS float64 `json:"bytes_per_s" validate:"gt=0"`
	// Probe is the name of the probe that ran it.
	Probe string `json:"probe" validate:"required,ident"`
}

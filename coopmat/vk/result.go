package vk

import (
	"errors"
	"fmt"

	"github.com/everycycle/appraise/schema"
)

// ErrFeatureMissing reports that the device lacks a feature a kernel needs
// (for example shaderFloat64); it is wrapped with the feature's name.
var ErrFeatureMissing = errors.New("feature missing")

// Probe names.
const (
	ProbeCoopMatGEMM = "coopmat-gemm"
	ProbeFMA64       = "fma-fp64"
	ProbeFMA16       = "fma-fp16"
	ProbeDot4I8      = "dot4-int8"
	ProbeDot4U8      = "dot4-uint8"
)

// Problem is the size of the measured work: a GEMM's M, N, K, or for the
// vector kernels the invocations (M), independent chains per invocation (N;
// for fp16, chains times vector lanes) and FMA or dot-product steps per
// chain (K).
type Problem struct {
	M uint32 `json:"m"`
	N uint32 `json:"n"`
	K uint32 `json:"k"`
}

// Result is one kernel that ran and passed its check.
type Result struct {
	// Probe names the kernel (ProbeCoopMatGEMM, ProbeFMA64, ProbeFMA16,
	// ProbeDot4I8, ProbeDot4U8).
	Probe string `json:"probe"`
	// Shape is the cooperative-matrix shape and component types used; for
	// vector kernels M=N=K=1 and the types are the vector types.
	Shape Shape `json:"shape"`
	// BColumnMajor is true when B was stored column-major (N×K rows of K).
	BColumnMajor bool `json:"b_column_major"`
	// MatrixEngine is true only for a cooperative-matrix kernel that ran and
	// passed its check.
	MatrixEngine bool `json:"matrix_engine"`
	// Problem is the size of one dispatch's work.
	Problem Problem `json:"problem"`
	// OpsPerSecond is the throughput in operations per second (a GEMM counts
	// 2·M·N·K, an FMA 2 per lane, a 4-wide 8-bit dot product accumulated 8).
	OpsPerSecond schema.Stat `json:"ops_per_s"`
	// Timing says how each sample's duration was measured.
	Timing schema.TimingMethod `json:"timing"`
	// Repeats is the number of dispatches in each timed sample.
	Repeats int `json:"repeats"`
	// Tile is the tile configuration the measured search chose.
	Tile string `json:"tile"`
	// Check is the comparison with the CPU reference (passed).
	Check Check `json:"check"`
}

// Skip says why a shape or kernel was not measured.
type Skip struct {
	// Probe names the kernel.
	Probe string `json:"probe"`
	// Shape is the shape concerned (zero for vector kernels).
	Shape Shape `json:"shape"`
	// Reason says precisely why it was skipped.
	Reason string `json:"reason"`
}

// Options steer the kernels of the probe packages: coopmat (Run, Roofline)
// and alu (the vector kernels) each embed them in their own Options. The
// zero value measures the default sizes.
type Options struct {
	// Timing is the warm-up and sample policy (raised to the minimums).
	Timing Timing
	// Size is the GEMM edge M=N=K (default 8192);
	// it is rounded down to a multiple of the chosen tile.
	Size uint32
	// SearchSize is the GEMM edge used by the tile search (default
	// min(Size, 4096)).
	SearchSize uint32
	// Seed seeds the random inputs.
	Seed uint64
	// CheckLines is the number of random rows and columns checked when the
	// GEMM is too large to check whole (default 4).
	CheckLines int
	// FMAInvocations is the invocation count of the vector kernels (fp64
	// and fp16 FMA, packed dot products; default 2^20).
	FMAInvocations uint32
	// FMASteps is the FMA (or dot-product) steps per chain (default 4096;
	// fp16 caps it at 7160 to stay exact, the dot products at 8192 to keep
	// the host's reference short).
	FMASteps uint32

	// Progress, when set, receives one line per measured tile candidate:
	// diagnostics for stderr, never results.
	Progress func(line string)
}

// Progressf sends one formatted progress line to o.Progress, when set:
// diagnostics for stderr, never results.
func (o Options) Progressf(format string, args ...any) {
	if o.Progress != nil {
		o.Progress(fmt.Sprintf(format, args...))
	}
}

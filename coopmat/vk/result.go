package vk

import (
	"errors"
	"fmt"

	"github.com/everycycle/appraise/schema"
)

// ErrFeatureMissing is wrapped, with the feature's name, when the device
// lacks a feature a kernel needs.
var ErrFeatureMissing = errors.New("feature missing")

// Probe names.
const (
	ProbeCoopMatGEMM = "coopmat-gemm"
	ProbeFMA64       = "fma-fp64"
	ProbeFMA16       = "fma-fp16"
	ProbeDot4I8      = "dot4-int8"
	ProbeDot4U8      = "dot4-uint8"
)

// Problem is the size of the measured work: a GEMM's M, N, K, or the vector
// kernels' invocations, chains and steps.
type Problem struct {
	M uint32 `json:"m"`
	N uint32 `json:"n"`
	K uint32 `json:"k"`
}

// Result is one kernel that ran and passed its check.
type Result struct {
	Probe string `json:"probe"` // ProbeCoopMatGEMM, ProbeFMA64, …
	// Shape is the cooperative-matrix shape; for vector kernels M=N=K=1
	// and the vector types.
	Shape        Shape   `json:"shape"`
	BColumnMajor bool    `json:"b_column_major"` // B stored N×K
	MatrixEngine bool    `json:"matrix_engine"`  // a cooperative-matrix kernel
	Problem      Problem `json:"problem"`        // one dispatch's work
	// OpsPerSecond counts 2·M·N·K a GEMM, 2 an FMA lane, 8 a 4×8-bit dot product.
	OpsPerSecond schema.Stat         `json:"ops_per_s"`
	Timing       schema.TimingMethod `json:"timing"`
	Repeats      int                 `json:"repeats"` // dispatches per sample
	Tile         string              `json:"tile"`
	Check        Check               `json:"check"`
}

// Skip says why a shape (zero for vector kernels) or kernel was not measured.
type Skip struct {
	Probe  string `json:"probe"`
	Shape  Shape  `json:"shape"`
	Reason string `json:"reason"`
}

// Options steer the kernels; zero fields take the defaults.
type Options struct {
	Timing     Timing
	Size       uint32 // GEMM edge M=N=K, rounded down to the tile; 8192
	SearchSize uint32 // GEMM edge of the tile search; min(Size, 4096)
	Seed       uint64
	// CheckLines is the random rows and columns checked of a GEMM too large
	// to check whole; 4.
	CheckLines     int
	FMAInvocations uint32 // of the vector kernels; 2^20
	// FMASteps is the steps per chain; 4096, capped where a kernel must stay exact.
	FMASteps uint32

	// Progress, when set, gets one diagnostic line per tile candidate.
	Progress func(line string)
}

// Progressf sends one formatted line to o.Progress, when set.
func (o Options) Progressf(format string, args ...any) {
	if o.Progress != nil {
		o.Progress(fmt.Sprintf(format, args...))
	}
}

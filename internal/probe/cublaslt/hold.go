package cublaslt

import (
	"errors"
	"fmt"
	"time"

	"github.com/everycycle/appraise/schema"
)

// The soak and the matrix roofline: two more uses of the library's GEMMs
// beside Run. Like Run, nothing here is specific to NVIDIA.

// ErrNoSoakLoad is wrapped when the library offers none of the precisions
// a soak may hold.
var ErrNoSoakLoad = errors.New("the library offers none of the soak's precisions")

// SoakPrecisions is the order in which Soak tries precisions when its
// options name none: dense 16-bit GEMMs first (the heaviest load: they
// draw a board to its power limit, docs/performance.md), then the
// narrower and the wider types.
func SoakPrecisions() []string {
	return []string{"bf16", "fp16_fp32acc", "fp16", "fp8_e4m3", "int8", "tf32", "fp64"}
}

// DefaultSoakPiece is how long each timed piece of a soak runs.
const DefaultSoakPiece = 100 * time.Millisecond

// SoakOptions configure Soak.
type SoakOptions struct {
	// Precisions are tried in order; the first the library offers is
	// held for the whole soak. nil means SoakPrecisions().
	Precisions []string
	// M, N, K are the GEMM's dimensions; 0 means DefaultSize.
	M, N, K int
	// Duration is how long the load is held; it must be positive.
	Duration time.Duration
	// Piece is how long each timed piece runs; 0 means DefaultSoakPiece.
	Piece time.Duration
	// Seed seeds the operands.
	Seed uint64
	// WorkspaceBytes is the most workspace the algorithm may use; 0
	// means DefaultWorkspaceBytes.
	WorkspaceBytes uint64
	// CheckLines is as in Options (whole rows and columns checked at
	// large sizes, at least 1).
	CheckLines int
	// OnPoint, when set, is called after each piece with its end time
	// since the load began and its throughput.
	OnPoint func(at time.Duration, opsPerS float64)
}

func (o SoakOptions) withDefaults() (SoakOptions, error) {
	if o.Duration <= 0 {
		return o, fmt.Errorf("cublaslt: soak of %v: the duration must be positive", o.Duration)
	}
	for _, d := range []*int{&o.M, &o.N, &o.K} {
		if *d == 0 {
			*d = DefaultSize
		}
	}
	if o.Precisions == nil {
		o.Precisions = SoakPrecisions()
	}
	if o.Piece == 0 {
		o.Piece = DefaultSoakPiece
	}
	if o.WorkspaceBytes == 0 {
		o.WorkspaceBytes = DefaultWorkspaceBytes
	}
	o.CheckLines = max(o.CheckLines, 1)
	shape := Options{M: o.M, N: o.N, K: o.K, Algorithms: 1, Samples: 1}
	return o, shape.validate()
}

// SoakPoint is one timed piece of a soak.
type SoakPoint struct {
	// At is when the piece ended, since the load began.
	At time.Duration
	// OpsPerS is the piece's throughput by the device's events.
	OpsPerS float64
}

// SoakResult is a finished soak.
type SoakResult struct {
	// Probe is ProbeName.
	Probe string
	// Precision is the GEMM held.
	Precision Precision
	// M, N, K are its dimensions; Repeats the GEMMs per piece.
	M, N, K, Repeats int
	// Duration is how long the load was held.
	Duration time.Duration
	// Points are the pieces in order.
	Points []SoakPoint
	// Check is the reference check of the last piece's output.
	Check Check
	// Refused lists the precisions tried before it that the library
	// does not offer, with its answer.
	Refused []string
}

// Workload names the load for the card, e.g. "gemm bf16 8192x8192x8192".
func (r SoakResult) Workload() string {
	return fmt.Sprintf("gemm %s %dx%dx%d", r.Precision.Name, r.M, r.N, r.K)
}

// RooflineOptions configure Roofline.
type RooflineOptions struct {
	// Precisions to sweep, by name; nil means every one of Precisions().
	Precisions []string
	// M, N are the output's dimensions, and K the largest reduction
	// swept; 0 means DefaultSize.
	M, N, K int
	// Ks are the reduction lengths swept, each a positive multiple of 32
	// no larger than K; none means the powers of two from 32 to K (a
	// sweep needs at least one: its output buffers are the largest K's).
	Ks []int
	// Samples is the number of rounds, each taking one sample of every
	// K; MinSample is as in Options (defaults 5 and 10 ms).
	Samples   int
	MinSample time.Duration
	// Hold keeps each point's GEMM running, one K after another, before
	// the rounds (it also sizes each K's batches); 0 means 20 ms (the
	// device is already warm from the probe).
	Hold time.Duration
	// Seed seeds the operands; WorkspaceBytes as in Options.
	Seed           uint64
	WorkspaceBytes uint64
	// Progress, when set, is told each precision as its sweep starts.
	Progress func(step string)
}

func (o RooflineOptions) withDefaults() (RooflineOptions, error) {
	for _, d := range []*int{&o.M, &o.N, &o.K} {
		if *d == 0 {
			*d = DefaultSize
		}
	}
	if o.Samples == 0 {
		o.Samples = 5
	}
	if o.MinSample == 0 {
		o.MinSample = DefaultMinSample
	}
	if o.Hold == 0 {
		o.Hold = 20 * time.Millisecond
	}
	if o.WorkspaceBytes == 0 {
		o.WorkspaceBytes = DefaultWorkspaceBytes
	}
	if len(o.Ks) == 0 {
		for k := 32; k <= o.K; k *= 2 {
			o.Ks = append(o.Ks, k)
		}
	}
	for _, k := range o.Ks {
		if k > o.K {
			return o, fmt.Errorf("cublaslt: roofline K %d is larger than the largest, %d", k, o.K)
		}
		if err := (Options{M: o.M, N: o.N, K: k, Algorithms: 1, Samples: o.Samples}).validate(); err != nil {
			return o, err
		}
	}
	return o, nil
}

// RooflinePoint is one reduction length of a sweep: an m×n×k GEMM, its
// operations and the bytes it must move at least (A and B read once, D
// written once, each as stored).
type RooflinePoint struct {
	K int
	// Ops is 2·m·n·k; Bytes the least traffic.
	Ops, Bytes float64
	// Seconds is the time of one GEMM over the samples; OpsPerS the
	// throughput per sample.
	Seconds, OpsPerS schema.Stat
	// Check is the reference check of the point's output.
	Check Check
}

// Intensity is the point's arithmetic intensity, operations per byte.
func (p RooflinePoint) Intensity() float64 { return p.Ops / p.Bytes }

// RooflineSweep is one precision's sweep, or why it has none.
type RooflineSweep struct {
	Precision Precision
	// M, N are the output's dimensions.
	M, N int
	// Points are in the order of RooflineOptions.Ks.
	Points []RooflinePoint
	// Status is StatusMeasured or why there are no points; Reason says more.
	Status Status
	Reason string
}

// leastBytes is the traffic of an m×n×k GEMM of p: A and B read once and
// D written once (beta is 0, so C is never read).
func leastBytes(p Precision, m, n, k int) float64 {
	return float64(p.A.rowBytes(m*k) + p.B.rowBytes(n*k) + p.Out.rowBytes(m*n))
}

package cublaslt

import (
	"errors"
	"fmt"
	"time"

	"github.com/everycycle/appraise/schema"
)

// ErrNoSoakLoad is wrapped when the library offers none of the precisions
// a soak may hold.
var ErrNoSoakLoad = errors.New("the library offers none of the soak's precisions")

// SoakPrecisions is the order Soak tries precisions in by default: the
// heaviest load first.
func SoakPrecisions() []string {
	return []string{"bf16", "fp16_fp32acc", "fp16", "fp8_e4m3", "int8", "tf32", "fp64"}
}

// DefaultSoakPiece is how long each timed piece of a soak runs.
const DefaultSoakPiece = 100 * time.Millisecond

// SoakOptions configure Soak; zero fields take the defaults, as in Options.
type SoakOptions struct {
	// Precisions are tried in order and the first offered is held; nil:
	// SoakPrecisions().
	Precisions     []string
	M, N, K        int
	Duration       time.Duration // must be positive
	Piece          time.Duration
	Seed           uint64
	WorkspaceBytes uint64
	CheckLines     int
	// OnPoint, when set, gets each piece's end since the load began and its throughput.
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

// SoakPoint is one timed piece of a soak: when it ended since the load
// began, and its throughput by the device's events.
type SoakPoint struct {
	At      time.Duration
	OpsPerS float64
}

// SoakResult is a finished soak.
type SoakResult struct {
	Probe            string // ProbeName
	Precision        Precision
	M, N, K, Repeats int // Repeats: GEMMs per piece
	Duration         time.Duration
	Points           []SoakPoint
	Check            Check    // of the last piece's output
	Refused          []string // precisions tried before, with the library's answer
}

// Workload names the load for the card, e.g. "gemm bf16 8192x8192x8192".
func (r SoakResult) Workload() string {
	return fmt.Sprintf("gemm %s %dx%dx%d", r.Precision.Name, r.M, r.N, r.K)
}

// RooflineOptions configure Roofline; zero fields take defaults.
type RooflineOptions struct {
	Precisions []string // nil: all
	M, N, K    int      // K is the largest reduction swept
	// Ks are the reduction lengths, positive multiples of 32 up to K; none
	// means the powers of two from 32 to K.
	Ks        []int
	Samples   int // rounds, each one sample of every K
	MinSample time.Duration
	// Hold runs each K before the rounds, sizing its batches.
	Hold           time.Duration
	Seed           uint64
	WorkspaceBytes uint64
	Progress       func(step string)
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
// 2·m·n·k operations, the least bytes it moves, and one GEMM's time.
type RooflinePoint struct {
	K                int
	Ops, Bytes       float64
	Seconds, OpsPerS schema.Stat
	Check            Check
}

// Intensity is the point's arithmetic intensity, operations per byte.
func (p RooflinePoint) Intensity() float64 { return p.Ops / p.Bytes }

// RooflineSweep is one precision's sweep, its points in the order of
// RooflineOptions.Ks, or its Status and Reason for having none.
type RooflineSweep struct {
	Precision Precision
	M, N      int
	Points    []RooflinePoint
	Status    Status
	Reason    string
}

// leastBytes is an m×n×k GEMM's traffic: A and B read once, D written once.
func leastBytes(p Precision, m, n, k int) float64 {
	return float64(p.A.rowBytes(m*k) + p.B.rowBytes(n*k) + p.Out.rowBytes(m*n))
}

//go:build !linux || !cgo

package peer

import (
	"context"
	"fmt"
)

// errNoCgo is why the CUDA path is missing from this build.
var errNoCgo = fmt.Errorf("cuda: this build has no CUDA loader (it needs linux and cgo): %w", ErrNoCUDA)

// DetectCUDA says whether the cuda-peer path can run: in this build, never.
func DetectCUDA(this, peer string) (CUDAStatus, error) {
	return CUDAStatus{Why: errNoCgo.Error()}, nil
}

// MeasurePair returns an error wrapping ErrNoCUDA: this build has no loader.
func MeasurePair(ctx context.Context, this, peer string, bytes uint64) (PairResult, error) {
	return PairResult{}, errNoCgo
}

//go:build !linux || !cgo

package cublaslt

import (
	"context"
	"fmt"
)

var errNoCgo = fmt.Errorf("cublaslt: this build has no library loader (it needs linux and cgo): %w", ErrNoLibrary)

// Library is a loaded cuBLASLt; this build cannot load one.
type Library struct{}

// Open always fails in this build, wrapping ErrNoLibrary.
func Open(o LoadOptions) (*Library, error) { return nil, errNoCgo }

// Run fails in this build.
func (l *Library) Run(ctx context.Context, busID string, o Options) (Report, error) {
	return Report{}, errNoCgo
}

// Close does nothing in this build.
func (l *Library) Close() error { return nil }

// Soak fails in this build.
func (l *Library) Soak(ctx context.Context, busID string, o SoakOptions) (SoakResult, error) {
	return SoakResult{}, errNoCgo
}

// Roofline fails in this build.
func (l *Library) Roofline(ctx context.Context, busID string, o RooflineOptions) ([]RooflineSweep, error) {
	return nil, errNoCgo
}

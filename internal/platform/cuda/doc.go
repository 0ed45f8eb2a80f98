// Package cuda is the CUDA driver API as the probes use it, loaded at run
// time so binaries build without CUDA headers and start without the driver.
// Start with Open. Contexts are current per OS thread, so a caller locks its
// goroutine to its thread around the calls that need one.
package cuda

import (
	"errors"
	"fmt"
)

// ErrUnavailable is wrapped when the driver library cannot be loaded or lacks
// an entry point.
var ErrUnavailable = errors.New("CUDA driver library unavailable")

// Error is a failing CUresult with its name (cuGetErrorName).
type Error struct {
	Code int
	Name string
}

func (e *Error) Error() string { return fmt.Sprintf("%s (%d)", e.Name, e.Code) }

// LoadError says why the library at Path could not be used; it wraps
// ErrUnavailable.
type LoadError struct {
	Path, Msg string
}

func (e *LoadError) Error() string { return fmt.Sprintf("load %s: %s", e.Path, e.Msg) }

func (e *LoadError) Unwrap() error { return ErrUnavailable }

// DefaultLibrary is the driver library's soname.
const DefaultLibrary = "libcuda.so.1"

// Device is a CUDA device ordinal.
type Device int32

// Ptr is a device memory address.
type Ptr uint64

// Package cuda is the CUDA driver API as the probes use it, loaded at run
// time: Open dlopens the driver library (libcuda.so.1, or a file a test
// names) and resolves every entry point the probes call, so binaries
// build without CUDA headers and start on hosts without the driver.
// Each Driver holds its own handle: nothing here is global.
//
// Contexts are current per OS thread: a caller locks its goroutine to its
// thread (runtime.LockOSThread) around the calls that need one.
// Errors name the failing call ("cuMemAlloc: CUDA_ERROR_OUT_OF_MEMORY
// (2)") and wrap an *Error; callers prefix their package's name.
package cuda

import (
	"errors"
	"fmt"
)

// ErrUnavailable is wrapped when the driver library cannot be loaded, or
// lacks an entry point.
var ErrUnavailable = errors.New("CUDA driver library unavailable")

// Error is a failing CUresult with its name (cuGetErrorName).
type Error struct {
	Code int
	Name string
}

func (e *Error) Error() string { return fmt.Sprintf("%s (%d)", e.Name, e.Code) }

// LoadError says why the driver library at Path could not be used: the
// loader's message, or the entry point it lacks. It wraps ErrUnavailable.
type LoadError struct {
	Path, Msg string
}

func (e *LoadError) Error() string { return fmt.Sprintf("load %s: %s", e.Path, e.Msg) }

// Unwrap makes errors.Is(err, ErrUnavailable) true.
func (e *LoadError) Unwrap() error { return ErrUnavailable }

// DefaultLibrary is the driver library's soname.
const DefaultLibrary = "libcuda.so.1"

// Device is a CUDA device ordinal.
type Device int32

// Ptr is a device memory address.
type Ptr uint64

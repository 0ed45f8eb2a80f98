package peer

import (
	"errors"
	"fmt"
)

// ErrNoCUDA is wrapped when the CUDA driver library cannot be used: it is
// absent (the loader's message is in the error), lacks an entry point the
// probe needs, or cuInit fails. Callers branch on it to fall back.
var ErrNoCUDA = errors.New("CUDA driver library unavailable")

// Error is a failed CUDA driver call's result.
type Error struct {
	// Code is the CUresult.
	Code int
	// Name is cuGetErrorName's name for it, e.g. "CUDA_ERROR_OUT_OF_MEMORY".
	Name string
}

func (e *Error) Error() string { return fmt.Sprintf("%s (%d)", e.Name, e.Code) }

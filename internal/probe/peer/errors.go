package peer

import (
	"errors"

	"github.com/everycycle/appraise/internal/platform/cuda"
)

// ErrNoCUDA is wrapped when the CUDA driver library cannot be used: it is
// absent (the loader's message is in the error), lacks an entry point the
// probe needs, or cuInit fails. Callers branch on it to fall back.
var ErrNoCUDA = errors.New("CUDA driver library unavailable")

// Error is a failed CUDA driver call's result: the CUresult and
// cuGetErrorName's name for it, e.g. "CUDA_ERROR_OUT_OF_MEMORY".
type Error = cuda.Error

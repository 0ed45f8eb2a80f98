package peer

import (
	"errors"

	"github.com/everycycle/appraise/internal/platform/cuda"
)

// ErrNoCUDA is wrapped when the CUDA driver library is absent, lacks an entry
// point or fails cuInit; callers fall back on it.
var ErrNoCUDA = errors.New("CUDA driver library unavailable")

// Error is a failed CUDA driver call's CUresult and its name.
type Error = cuda.Error

package mixbench

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"time"

	"github.com/everycycle/appraise/internal/crosscheck/toolrun"
)

// RunDevice runs mixbench-cuda at binaryPath (toolrun.Run) with only the
// card at CUDA index, in bus order, visible to it as its device 0.
func RunDevice(ctx context.Context, binaryPath string, index int, timeout time.Duration) ([]byte, error) {
	if index < 0 {
		return nil, fmt.Errorf("mixbench: run %s: negative device index %d", binaryPath, index)
	}
	env := append(toolrun.CUDAEnv(os.Environ()), "CUDA_VISIBLE_DEVICES="+strconv.Itoa(index))
	return toolrun.Run(ctx, "mixbench", binaryPath, nil, env, timeout)
}

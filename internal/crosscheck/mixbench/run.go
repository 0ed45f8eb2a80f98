package mixbench

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"time"

	"github.com/everycycle/appraise/internal/crosscheck/toolrun"
)

// Run executes the mixbench-cuda binary at binaryPath with args, killing it
// when timeout passes or ctx ends, and returns what it wrote to stdout. A
// non-zero exit, a timeout or a cancelled ctx is an error that carries the
// end of the tool's stderr; no output is returned with an error.
//
// mixbench-cuda has no device option: it always uses CUDA device 0. Run
// gives it this process's environment with CUDA_DEVICE_ORDER=PCI_BUS_ID and
// without CUDA_VISIBLE_DEVICES, so device 0 is the card with the lowest bus
// address; use RunDevice to choose another.
func Run(ctx context.Context, binaryPath string, args []string, timeout time.Duration) ([]byte, error) {
	return run(ctx, binaryPath, args, toolrun.CUDAEnv(os.Environ()), timeout)
}

// RunDevice is Run on the card at CUDA index (in bus-address order, as
// pci.DeviceIndexByBusID computes it): it sets CUDA_VISIBLE_DEVICES to that
// index, which CUDA reads in the order CUDA_DEVICE_ORDER=PCI_BUS_ID gives,
// so the tool's device 0 is the card we mean even among identical ones.
// Check the Device name in the parsed output against the card as well.
func RunDevice(ctx context.Context, binaryPath string, index int, timeout time.Duration) ([]byte, error) {
	if index < 0 {
		return nil, fmt.Errorf("mixbench: run %s: negative device index %d", binaryPath, index)
	}
	env := append(toolrun.CUDAEnv(os.Environ()), "CUDA_VISIBLE_DEVICES="+strconv.Itoa(index))
	return run(ctx, binaryPath, nil, env, timeout)
}

// run executes the tool with env; see Run.
func run(ctx context.Context, binaryPath string, args, env []string, timeout time.Duration) ([]byte, error) {
	return toolrun.Run(ctx, "mixbench", binaryPath, args, env, timeout)
}

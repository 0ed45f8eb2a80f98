package mixbench

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"time"

	"github.com/everycycle/appraise/internal/crosscheck/toolrun"
)

// RunDevice executes the mixbench-cuda binary at binaryPath on the card
// at CUDA index (in bus-address order, as pci.DeviceIndexByBusID computes
// it), killing it when timeout passes or ctx ends, and returns what it
// wrote to stdout. A non-zero exit, a timeout or a cancelled ctx is an
// error that carries the end of the tool's stderr; no output is returned
// with an error.
//
// mixbench-cuda has no device option: it always uses CUDA device 0. The
// tool gets this process's environment with CUDA_DEVICE_ORDER=PCI_BUS_ID
// and CUDA_VISIBLE_DEVICES set to index, which CUDA reads in that order,
// so the tool's device 0 is the card we mean even among identical ones.
// Check the Device name in the parsed output against the card as well.
func RunDevice(ctx context.Context, binaryPath string, index int, timeout time.Duration) ([]byte, error) {
	if index < 0 {
		return nil, fmt.Errorf("mixbench: run %s: negative device index %d", binaryPath, index)
	}
	env := append(toolrun.CUDAEnv(os.Environ()), "CUDA_VISIBLE_DEVICES="+strconv.Itoa(index))
	return toolrun.Run(ctx, "mixbench", binaryPath, nil, env, timeout)
}

package mixbench

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"
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
	return run(ctx, binaryPath, args, cudaEnv(os.Environ()), timeout)
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
	env := append(cudaEnv(os.Environ()), "CUDA_VISIBLE_DEVICES="+strconv.Itoa(index))
	return run(ctx, binaryPath, nil, env, timeout)
}

// run executes the tool with env; see Run.
func run(ctx context.Context, binaryPath string, args, env []string, timeout time.Duration) ([]byte, error) {
	if timeout <= 0 {
		return nil, fmt.Errorf("mixbench: run %s: timeout %s is not positive", binaryPath, timeout)
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, binaryPath, args...)
	cmd.Env = env
	cmd.WaitDelay = 2 * time.Second
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	switch {
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		return nil, fmt.Errorf("mixbench: %s timed out after %s: %w%s", binaryPath, timeout, ctx.Err(), stderrTail(&stderr))
	case ctx.Err() != nil:
		return nil, fmt.Errorf("mixbench: %s: %w%s", binaryPath, ctx.Err(), stderrTail(&stderr))
	case err != nil:
		return nil, fmt.Errorf("mixbench: %s: %w%s", binaryPath, err, stderrTail(&stderr))
	}
	return stdout.Bytes(), nil
}

// cudaEnv returns env with CUDA_DEVICE_ORDER=PCI_BUS_ID and without
// CUDA_VISIBLE_DEVICES or an earlier CUDA_DEVICE_ORDER.
func cudaEnv(env []string) []string {
	out := make([]string, 0, len(env)+1)
	for _, kv := range env {
		if strings.HasPrefix(kv, "CUDA_VISIBLE_DEVICES=") || strings.HasPrefix(kv, "CUDA_DEVICE_ORDER=") {
			continue
		}
		out = append(out, kv)
	}
	return append(out, "CUDA_DEVICE_ORDER=PCI_BUS_ID")
}

// stderrTail formats the last 2 KiB of the tool's stderr for an error.
func stderrTail(stderr *bytes.Buffer) string {
	b := bytes.TrimSpace(stderr.Bytes())
	if len(b) == 0 {
		return ""
	}
	if len(b) > 2048 {
		b = append([]byte("..."), b[len(b)-2048:]...)
	}
	return "; stderr: " + string(b)
}

// Package toolrun runs the external CUDA tools that cross-checks use
// (BabelStream, mixbench): shelled out with a timeout, never linked, with
// an environment that numbers CUDA devices by bus address.
package toolrun

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"time"
)

// Run executes binaryPath with args and env, killing it when timeout
// passes or ctx ends, and returns what it wrote to stdout. A non-zero exit,
// a timeout or a cancelled ctx is an error, prefixed with name, that
// carries the end of the tool's stderr; no output is returned with an
// error.
func Run(ctx context.Context, name, binaryPath string, args, env []string, timeout time.Duration) ([]byte, error) {
	if timeout <= 0 {
		return nil, fmt.Errorf("%s: run %s: timeout %s is not positive", name, binaryPath, timeout)
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
		return nil, fmt.Errorf("%s: %s timed out after %s: %w%s", name, binaryPath, timeout, ctx.Err(), stderrTail(&stderr))
	case ctx.Err() != nil:
		return nil, fmt.Errorf("%s: %s: %w%s", name, binaryPath, ctx.Err(), stderrTail(&stderr))
	case err != nil:
		return nil, fmt.Errorf("%s: %s: %w%s", name, binaryPath, err, stderrTail(&stderr))
	}
	return stdout.Bytes(), nil
}

// CUDAEnv returns env with CUDA_DEVICE_ORDER=PCI_BUS_ID and without
// CUDA_VISIBLE_DEVICES or an earlier CUDA_DEVICE_ORDER, so CUDA numbers
// every device in bus-address order.
func CUDAEnv(env []string) []string {
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

// ErrTruncated is returned by ReadLines for empty output or output cut
// short mid-line.
var ErrTruncated = errors.New("output empty or cut short")

// ReadLines reads all of a tool's output and splits it into lines. Empty
// output, or output that ends mid-line (no final newline), wraps
// ErrTruncated: a tool killed or crashed part-way must not parse as a
// shorter, valid result.
func ReadLines(r io.Reader) ([]string, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("read: %w", err)
	}
	if len(data) == 0 {
		return nil, fmt.Errorf("empty input: %w", ErrTruncated)
	}
	if data[len(data)-1] != '\n' {
		return nil, fmt.Errorf("output ends mid-line: %w", ErrTruncated)
	}
	var lines []string
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, len(data)+1)
	for sc.Scan() {
		lines = append(lines, sc.Text())
	}
	return lines, sc.Err()
}

// Package toolrun runs the cross-check tools (BabelStream, mixbench) as
// processes with a timeout, and reads their output as lines.
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

// Run runs binaryPath with args and env until it exits, timeout passes or
// ctx ends, and returns its stdout. Any other end is an error prefixed
// with name, carrying the end of its stderr, and no output.
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

// CUDAEnv is env with every CUDA device visible, numbered in bus order.
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

// ErrTruncated is wrapped by ReadLines for empty or cut-short output.
var ErrTruncated = errors.New("output empty or cut short")

// ReadLines splits a tool's whole output into lines; output that is
// empty or ends mid-line wraps ErrTruncated.
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

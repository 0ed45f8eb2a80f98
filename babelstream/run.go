package babelstream

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"
)

// Run executes the BabelStream binary at binaryPath with args, killing it
// when timeout passes or ctx ends, and returns what it wrote to stdout. A
// non-zero exit (BabelStream exits 1 when its own check of the results
// fails), a timeout or a cancelled ctx is an error that carries the end of
// the tool's stderr; no output is returned with an error.
//
// The tool inherits this process's environment except that
// CUDA_DEVICE_ORDER is set to PCI_BUS_ID and CUDA_VISIBLE_DEVICES is
// removed, so CUDA numbers every device in bus-address order and the index
// from pci.DeviceIndexByBusID, passed with DeviceArgs, names the card we
// mean even among identical ones.
func Run(ctx context.Context, binaryPath string, args []string, timeout time.Duration) ([]byte, error) {
	if timeout <= 0 {
		return nil, fmt.Errorf("babelstream: run %s: timeout %s is not positive", binaryPath, timeout)
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, binaryPath, args...)
	cmd.Env = cudaEnv(os.Environ())
	cmd.WaitDelay = 2 * time.Second
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	switch {
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		return nil, fmt.Errorf("babelstream: %s timed out after %s: %w%s", binaryPath, timeout, ctx.Err(), stderrTail(&stderr))
	case ctx.Err() != nil:
		return nil, fmt.Errorf("babelstream: %s: %w%s", binaryPath, ctx.Err(), stderrTail(&stderr))
	case err != nil:
		return nil, fmt.Errorf("babelstream: %s: %w%s", binaryPath, err, stderrTail(&stderr))
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

// DeviceArgs returns the arguments that make BabelStream use the device
// at index (see Run for how the index relates to a bus address).
func DeviceArgs(index int) []string {
	return []string{"--device", strconv.Itoa(index)}
}

// ParseList parses the output of `--list`: a "Devices:" line followed by
// "<index>: <name>" lines numbered from 0. BabelStream lists names only,
// which cannot tell identical cards apart; use the list to check that the
// tool sees as many devices as pci.DeviceIndexByBusID was given.
func ParseList(r io.Reader) ([]string, error) {
	lines, err := readLines(r)
	if err != nil {
		return nil, err
	}
	var names []string
	seenHeader := false
	for i, line := range lines {
		switch {
		case strings.TrimSpace(line) == "":
		case !seenHeader && line == "Devices:":
			seenHeader = true
		case seenHeader:
			idx, name, ok := strings.Cut(line, ": ")
			if !ok || idx != strconv.Itoa(len(names)) || name == "" {
				return nil, fmt.Errorf("babelstream: parse list line %d: want %d: NAME, got %q: %w", i+1, len(names), line, ErrFormat)
			}
			names = append(names, name)
		default:
			return nil, fmt.Errorf("babelstream: parse list line %d: unexpected %q: %w", i+1, line, ErrFormat)
		}
	}
	if len(names) == 0 {
		return nil, fmt.Errorf("babelstream: parse list: no devices listed: %w", ErrFormat)
	}
	return names, nil
}

package babelstream

import (
	"context"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/everycycle/appraise/internal/crosscheck/toolrun"
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
	return toolrun.Run(ctx, "babelstream", binaryPath, args, toolrun.CUDAEnv(os.Environ()), timeout)
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

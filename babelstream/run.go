package babelstream

import (
	"fmt"
	"io"
	"strconv"
	"strings"
)

// DeviceArgs returns the arguments that make BabelStream use the device
// at index: CUDA's index of the card when the tool runs with
// toolrun.CUDAEnv (every device in bus-address order, as
// pci.DeviceIndexByBusID computes it), which names the card we mean even
// among identical ones.
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

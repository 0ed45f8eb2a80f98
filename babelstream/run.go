package babelstream

import (
	"fmt"
	"io"
	"strconv"
	"strings"
)

// DeviceArgs are the arguments that make BabelStream use device index
// (a CUDA build's, in bus order under toolrun.CUDAEnv).
func DeviceArgs(index int) []string {
	return []string{"--device", strconv.Itoa(index)}
}

// ParseList parses the output of --list: "Devices:", then "<index>:
// <name>" lines numbered from 0. It returns the names in order.
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

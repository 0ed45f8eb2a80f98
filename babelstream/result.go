// Package babelstream runs BabelStream (UoB-HPC/BabelStream, version 5.0)
// and parses what it prints, for the cross-check of our memory-bandwidth
// probes.
//
// Start with ParseCSV for the machine-readable output of `--csv`, the only
// output the cross-check reads (the human table is for people). It returns
// a Result whose Kernels carry the tool's own figures converted exactly to
// bytes per second and seconds. Run executes the tool with a
// timeout and DeviceArgs selects the device found by
// pci.DeviceIndexByBusID. The parsers are pure functions; nothing here
// links to the tool.
package babelstream

import (
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/everycycle/appraise/internal/crosscheck/toolrun"
)

// ErrFormat is wrapped by every error that reports input the parsers do
// not accept: truncated, garbled or of another format.
var ErrFormat = errors.New("not BabelStream output")

// Unit is a memory unit as BabelStream names it (its Unit.h): MB, GB and
// TB are powers of 10, MiB, GiB and TiB powers of 2. MB (10^6) is the
// default; --mibibytes and friends select the others.
type Unit string

// The units BabelStream can print.
const (
	MB  Unit = "MB"
	GB  Unit = "GB"
	TB  Unit = "TB"
	MiB Unit = "MiB"
	GiB Unit = "GiB"
	TiB Unit = "TiB"
)

// scale returns the unit as a power of 10 or of 2; ok is false for a name
// BabelStream does not print.
func (u Unit) scale() (pow10, pow2 int, ok bool) {
	switch u {
	case MB:
		return 6, 0, true
	case GB:
		return 9, 0, true
	case TB:
		return 12, 0, true
	case MiB:
		return 0, 20, true
	case GiB:
		return 0, 30, true
	case TiB:
		return 0, 40, true
	}
	return 0, 0, false
}

// Bytes returns the number of bytes in one unit (1e6 for MB, 2^20 for
// MiB), 0 for an unknown unit.
func (u Unit) Bytes() float64 {
	p10, p2, ok := u.scale()
	if !ok {
		return 0
	}
	return math.Pow(10, float64(p10)) * math.Ldexp(1, p2)
}

// Precision is the element type BabelStream ran with.
type Precision string

// The two precisions BabelStream supports.
const (
	Float  Precision = "float"
	Double Precision = "double"
)

// Result is one BabelStream run.
type Result struct {
	// Implementation is the programming model, e.g. "CUDA"; from --csv
	// output it is inferred from the device line when that names it.
	Implementation string
	// NumTimes is how often each kernel ran; the tool leaves the first run
	// out of the figures.
	NumTimes int
	// Precision is the element type.
	Precision Precision
	// ElementBytes is the size of one element in bytes (4 or 8).
	ElementBytes int
	// Elements is the number of elements in each of the three arrays.
	Elements int64
	// Unit is the unit of Kernel.Bandwidth (per second).
	Unit Unit
	// DeviceName is the device the implementation reports using; empty
	// when it printed none.
	DeviceName string
	// DeviceIndex is the device index the implementation printed, -1 when
	// it printed none.
	DeviceIndex int
	// Driver is the driver version the implementation printed, verbatim
	// (CUDA prints cudaDriverGetVersion, e.g. "13000").
	Driver string
	// Details holds the other implementation-specific lines, verbatim.
	Details []string
	// Kernels are the measured kernels in the order printed.
	Kernels []Kernel
}

// Kernel is one row of BabelStream's results table.
type Kernel struct {
	// Name is the kernel: Copy, Mul, Add, Triad, Dot or Nstream.
	Name string
	// Bandwidth is the printed figure, in Result.Unit per second: bytes
	// moved divided by the fastest run.
	Bandwidth float64
	// BandwidthBytesPerSec is Bandwidth in bytes per second, converted
	// from the printed decimal without intermediate rounding.
	BandwidthBytesPerSec float64
	// BytesMoved is what the tool counts as moved by one run of the
	// kernel: its weight from benchmark.h × ElementBytes × Elements.
	BytesMoved int64
	// MinSeconds is the fastest run, in seconds.
	MinSeconds float64
	// MaxSeconds is the slowest run, in seconds.
	MaxSeconds float64
	// AvgSeconds is the mean over the runs after the first, in seconds.
	AvgSeconds float64
}

// Kernel returns the named kernel's row and whether the run has it.
func (r *Result) Kernel(name string) (Kernel, bool) {
	for _, k := range r.Kernels {
		if k.Name == name {
			return k, true
		}
	}
	return Kernel{}, false
}

// ArrayBytes returns the exact size of one array in bytes.
func (r *Result) ArrayBytes() int64 { return r.Elements * int64(r.ElementBytes) }

// kernelNames lists BabelStream's kernels in the order it runs and prints
// them (the bench array of benchmark.h).
func kernelNames() []string {
	return []string{"Copy", "Mul", "Add", "Triad", "Dot", "Nstream"}
}

// kernelWeight returns how many arrays a kernel touches per element, its
// weight in benchmark.h; 0 for a name BabelStream does not have.
func kernelWeight(name string) int64 {
	switch name {
	case "Copy", "Mul", "Dot":
		return 2
	case "Add", "Triad":
		return 3
	case "Nstream":
		return 4
	}
	return 0
}

// readLines reads the tool's output as lines (toolrun.ReadLines); empty
// or truncated output is a format error.
func readLines(r io.Reader) ([]string, error) {
	lines, err := toolrun.ReadLines(r)
	if err != nil {
		return nil, fmt.Errorf("babelstream: %w: %w", ErrFormat, err)
	}
	return lines, nil
}

// parseNumber parses a plain decimal number as C++ iostreams print it
// ("3956318.317", "0.00109", "3.95632e+06") and scales it by 10^pow10 and
// 2^pow2 without intermediate rounding: the decimal exponent is shifted
// before the one correctly rounded conversion. Infinities, NaN, hex and
// anything else are errors.
func parseNumber(s string, pow10, pow2 int) (float64, error) {
	if s == "" || strings.Trim(s, "0123456789.eE+-") != "" {
		return 0, fmt.Errorf("%q is not a number", s)
	}
	mant, exp := s, 0
	if i := strings.IndexAny(s, "eE"); i >= 0 {
		e, err := strconv.Atoi(s[i+1:])
		if err != nil || e < -999 || e > 999 {
			return 0, fmt.Errorf("%q: bad exponent", s)
		}
		mant, exp = s[:i], e
	}
	if _, err := strconv.ParseFloat(mant, 64); err != nil {
		return 0, fmt.Errorf("%q is not a number", s)
	}
	v, err := strconv.ParseFloat(mant+"e"+strconv.Itoa(exp+pow10), 64)
	if err != nil || math.IsInf(v, 0) {
		return 0, fmt.Errorf("%q is out of range", s)
	}
	return math.Ldexp(v, pow2), nil
}

// toBytes converts a number printed in unit u to bytes (per second).
func toBytes(s string, u Unit) (float64, error) {
	p10, p2, ok := u.scale()
	if !ok {
		return 0, fmt.Errorf("unknown unit %q", u)
	}
	return parseNumber(s, p10, p2)
}

// Package babelstream parses what BabelStream 5.0 (UoB-HPC/BabelStream)
// prints. Start with ParseCSV, for its --csv output: a Result whose
// Kernels carry the tool's figures converted exactly to bytes per second.
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

// ErrFormat is wrapped by every error about input the parsers reject.
var ErrFormat = errors.New("not BabelStream output")

// Unit is a memory unit as BabelStream names it: MB, GB and TB are powers
// of 10, MiB, GiB and TiB powers of 2.
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

// scale returns the unit as a power of 10 or of 2, if it is one.
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

// Bytes returns the bytes in one unit, 0 for an unknown unit.
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
	// Implementation is the programming model its device line names.
	Implementation string
	// NumTimes is how often each kernel ran, the first not counted.
	NumTimes int
	// Precision is the element type, of ElementBytes bytes; Elements is
	// each array's length.
	Precision    Precision
	ElementBytes int
	Elements     int64
	// Unit is Kernel.Bandwidth's unit, per second.
	Unit Unit
	// DeviceName, DeviceIndex (-1: none) and Driver are what the
	// implementation printed; Details are its other lines, verbatim.
	DeviceName  string
	DeviceIndex int
	Driver      string
	Details     []string
	// Kernels are the table's rows, in order.
	Kernels []Kernel
}

// Kernel is one row of BabelStream's results table.
type Kernel struct {
	// Name is Copy, Mul, Add, Triad, Dot or Nstream.
	Name string
	// Bandwidth is BytesMoved over MinSeconds as printed, in Result.Unit
	// per second; BandwidthBytesPerSec is it in bytes per second.
	Bandwidth            float64
	BandwidthBytesPerSec float64
	// BytesMoved is what the tool counts one run as moving, in bytes.
	BytesMoved int64
	// MinSeconds, MaxSeconds and AvgSeconds are the fastest, slowest and
	// mean run, in seconds.
	MinSeconds, MaxSeconds, AvgSeconds float64
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

// kernelNames lists BabelStream's kernels in the order it prints them.
func kernelNames() []string {
	return []string{"Copy", "Mul", "Add", "Triad", "Dot", "Nstream"}
}

// kernelWeight is how many arrays a kernel touches per element, or 0.
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

func readLines(r io.Reader) ([]string, error) {
	lines, err := toolrun.ReadLines(r)
	if err != nil {
		return nil, fmt.Errorf("babelstream: %w: %w", ErrFormat, err)
	}
	return lines, nil
}

// parseNumber parses a decimal as C++ iostreams print it ("0.00109",
// "3.95632e+06") scaled by 10^pow10 and 2^pow2, rounded once.
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

func toBytes(s string, u Unit) (float64, error) {
	p10, p2, ok := u.scale()
	if !ok {
		return 0, fmt.Errorf("unknown unit %q", u)
	}
	return parseNumber(s, p10, p2)
}

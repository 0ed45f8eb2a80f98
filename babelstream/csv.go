package babelstream

import (
	"fmt"
	"io"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// The kernel table's header of BabelStream 5.0's main branch and release
// tag, and the tag's phase table's.
var (
	csvHeaderRE      = regexp.MustCompile(`^function,num_times,n_elements,sizeof,max_(\w+)_per_sec,min_runtime,max_runtime,avg_runtime$`)
	csvPhaseHeaderRE = regexp.MustCompile(`^phase,n_elements,sizeof,max_(mbytes|mibytes)_per_sec,runtime$`)
)

func csvUnit(s string) (Unit, bool) {
	switch s {
	case "mbytes":
		return MB, true
	case "mibytes":
		return MiB, true
	}
	u := Unit(s)
	_, _, ok := u.scale()
	return u, ok
}

// ParseCSV parses the output of BabelStream 5.0 run with --csv. A cut,
// garbled, disordered or inconsistent table is an error; a table cut at a
// row boundary is not, so callers check with Result.Kernel for theirs.
func ParseCSV(r io.Reader) (*Result, error) {
	lines, err := readLines(r)
	if err != nil {
		return nil, err
	}
	res := &Result{DeviceIndex: -1}
	n, err := res.parseCSV(lines)
	if err != nil {
		return nil, fmt.Errorf("babelstream: parse line %d: %w", n+1, err)
	}
	return res, nil
}

// parseCSV fills r from lines; on error it returns the faulty line's index.
func (r *Result) parseCSV(lines []string) (int, error) {
	n := 0
	for ; n < len(lines) && !strings.HasPrefix(lines[n], "phase,") && !strings.HasPrefix(lines[n], "function,"); n++ {
		r.addDetail(lines[n])
		if r.Implementation == "" {
			r.Implementation = implementationOf(lines[n])
		}
	}
	if n == len(lines) {
		return n - 1, fmt.Errorf("no CSV table header: %w", ErrFormat)
	}
	if csvPhaseHeaderRE.MatchString(lines[n]) {
		if err := checkPhases(lines[n+1:]); err != nil {
			return n + 1, err
		}
		n += 3
	}
	if n >= len(lines) {
		return n - 1, fmt.Errorf("no kernel table after the phase table: %w", ErrFormat)
	}
	m := csvHeaderRE.FindStringSubmatch(lines[n])
	if m == nil {
		return n, fmt.Errorf("bad CSV header %q: %w", lines[n], ErrFormat)
	}
	u, ok := csvUnit(m[1])
	if !ok {
		return n, fmt.Errorf("unknown unit %q in CSV header: %w", m[1], ErrFormat)
	}
	r.Unit = u
	n++
	if n == len(lines) {
		return n - 1, fmt.Errorf("no kernel rows (truncated): %w", ErrFormat)
	}
	for ; n < len(lines); n++ {
		if err := r.csvRow(lines[n]); err != nil {
			return n, err
		}
	}
	return n, nil
}

// implementationOf names the model a device line names, if any.
func implementationOf(line string) string {
	if cudaDevRE.MatchString(line) {
		return "CUDA"
	}
	if m := usingDevRE.FindStringSubmatch(line); m != nil {
		return m[1]
	}
	return ""
}

func checkPhases(lines []string) error {
	for i, name := range []string{"Init", "Read"} {
		if i >= len(lines) {
			return fmt.Errorf("phase table ends early (truncated): %w", ErrFormat)
		}
		f := strings.Split(lines[i], ",")
		if len(f) != 5 || f[0] != name {
			return fmt.Errorf("want the %s phase row, got %q: %w", name, lines[i], ErrFormat)
		}
		for _, s := range f[1:] {
			if _, err := parseNumber(s, 0, 0); err != nil {
				return fmt.Errorf("%s phase: %w: %w", name, err, ErrFormat)
			}
		}
	}
	return nil
}

// csvRow parses a kernel row and checks it against the rows before it.
func (r *Result) csvRow(line string) error {
	f := strings.Split(line, ",")
	if len(f) != 8 {
		return fmt.Errorf("want 8 fields, got %d in %q: %w", len(f), line, ErrFormat)
	}
	numTimes, err1 := strconv.Atoi(f[1])
	elements, err2 := strconv.ParseInt(f[2], 10, 64)
	size, err3 := strconv.Atoi(f[3])
	if err1 != nil || err2 != nil || err3 != nil || numTimes < 2 || elements <= 0 {
		return fmt.Errorf("bad num_times, n_elements or sizeof in %q: %w", line, ErrFormat)
	}
	if len(r.Kernels) == 0 {
		if err := r.setPrecision(precisionOf(size)); err != nil {
			return fmt.Errorf("sizeof %d: %w", size, err)
		}
		r.NumTimes, r.Elements = numTimes, elements
	} else if numTimes != r.NumTimes || elements != r.Elements || size != r.ElementBytes {
		return fmt.Errorf("row %q disagrees with the rows before it: %w", line, ErrFormat)
	}
	if err := r.checkOrder(f[0]); err != nil {
		return err
	}
	k, err := r.kernel(f[0], f[4], f[5], f[6], f[7])
	if err != nil {
		return err
	}
	// Both printed to six significant digits, they agree to about 1e-5.
	if want := float64(k.BytesMoved) / k.MinSeconds; k.MinSeconds > 0 && math.Abs(k.BandwidthBytesPerSec-want) > 1e-4*want {
		return fmt.Errorf("%s: bandwidth %s does not match %d bytes in %s s: %w", k.Name, f[4], k.BytesMoved, f[5], ErrFormat)
	}
	r.Kernels = append(r.Kernels, k)
	return nil
}

func (r *Result) checkOrder(name string) error {
	names := kernelNames()
	i := slices.Index(names, name)
	if i < 0 {
		return fmt.Errorf("unknown kernel %q: %w", name, ErrFormat)
	}
	if len(r.Kernels) > 0 && slices.Index(names, r.Kernels[len(r.Kernels)-1].Name) >= i {
		return fmt.Errorf("kernel %s out of order or repeated: %w", name, ErrFormat)
	}
	return nil
}

func precisionOf(size int) Precision {
	switch size {
	case 4:
		return Float
	case 8:
		return Double
	}
	return ""
}

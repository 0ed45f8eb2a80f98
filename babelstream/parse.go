package babelstream

import (
	"fmt"
	"io"
	"math"
	"regexp"
	"strconv"
	"strings"
)

// The human format of BabelStream 5.0 (main.cpp on the main branch, the
// build the samples come from), line by line:
//
//	BabelStream
//	Version: 5.0
//	Implementation: CUDA
//	Running  Classic kernels 100 times in  Classic order
//	Number of elements: 268435456
//	Precision: double
//	Array size: 2147.5 MB
//	Total size: 6442.5 MB
//	<implementation-specific lines: driver, device, configuration>
//	Function    MB/s        Min (sec)   Max         Average
//	Copy        3956318.317 0.00109     0.00112     0.00109
//	...
//
// The "Running" line has three shapes: " Classic kernels ", " All kernels "
// and, for --only NAME, "Running NAME " (the tool prints "Running " twice).
var (
	runningRE   = regexp.MustCompile(`^Running +(?:(Classic|All) kernels|Running (\w+)) +(\d+) times in +(Classic|Isolated) order *$`)
	cudaDevRE   = regexp.MustCompile(`^CUDA Device (\d+): "([^"]*)"`)
	usingDevRE  = regexp.MustCompile(`^Using (HIP|OpenCL|SYCL|CUDA|HC) device:? (.+)$`)
	driverRE    = regexp.MustCompile(`^(?:CUDA )?Driver: (.+)$`)
	sizeValueRE = regexp.MustCompile(`^(\d+\.\d) (MB|MiB|GB|GiB|TB|TiB)$`)
)

// Parse parses BabelStream 5.0's human-readable output (run without
// --csv). It checks the header against itself (array sizes against
// elements × element size, the table's unit against the header's) and
// requires exactly the kernels the "Running" line announces, so a
// truncated or garbled capture is an error, never a partial result.
func Parse(r io.Reader) (*Result, error) {
	lines, err := readLines(r)
	if err != nil {
		return nil, err
	}
	p := &humanParser{lines: lines, res: &Result{DeviceIndex: -1}}
	if err := p.parse(); err != nil {
		// p.n counts the lines consumed, so it is the 1-based number of
		// the line at fault.
		return nil, fmt.Errorf("babelstream: parse line %d: %w", max(p.n, 1), err)
	}
	return p.res, nil
}

// humanParser walks the lines of the human format.
type humanParser struct {
	lines []string
	n     int // number of lines consumed
	res   *Result
}

// next returns the current line and advances; an error when the output
// ends early.
func (p *humanParser) next() (string, error) {
	if p.n >= len(p.lines) {
		return "", fmt.Errorf("output ends early (truncated): %w", ErrFormat)
	}
	p.n++
	return p.lines[p.n-1], nil
}

// field reads the next line as "key: value".
func (p *humanParser) field(key string) (string, error) {
	line, err := p.next()
	if err != nil {
		return "", err
	}
	v, ok := strings.CutPrefix(line, key+": ")
	if !ok || v == "" {
		return "", fmt.Errorf("want %q, got %q: %w", key+": ...", line, ErrFormat)
	}
	return v, nil
}

func (p *humanParser) parse() error {
	res := p.res
	if line, err := p.next(); err != nil || line != "BabelStream" {
		return fmt.Errorf("want the banner %q: %w", "BabelStream", ErrFormat)
	}
	var err error
	if res.Version, err = p.field("Version"); err != nil {
		return err
	}
	if res.Implementation, err = p.field("Implementation"); err != nil {
		return err
	}
	if err := p.running(); err != nil {
		return err
	}
	if err := p.sizes(); err != nil {
		return err
	}
	for {
		line, err := p.next()
		if err != nil {
			return err
		}
		if strings.HasPrefix(line, "Function ") {
			if err := p.header(line); err != nil {
				return err
			}
			break
		}
		res.addDetail(line)
	}
	return p.rows()
}

// running parses the "Running ..." line.
func (p *humanParser) running() error {
	line, err := p.next()
	if err != nil {
		return err
	}
	m := runningRE.FindStringSubmatch(line)
	if m == nil {
		return fmt.Errorf("want the %q line, got %q: %w", "Running ...", line, ErrFormat)
	}
	p.res.Selection = m[1] + m[2]
	n, err := strconv.Atoi(m[3])
	if err != nil || n < 2 {
		return fmt.Errorf("bad run count %q: %w", m[3], ErrFormat)
	}
	p.res.NumTimes, p.res.Order = n, m[4]
	if m[2] != "" && kernelWeight(m[2]) == 0 {
		return fmt.Errorf("unknown kernel %q: %w", m[2], ErrFormat)
	}
	return nil
}

// sizes parses the element count, precision and array sizes and checks
// the printed sizes against elements × element size.
func (p *humanParser) sizes() error {
	res := p.res
	s, err := p.field("Number of elements")
	if err != nil {
		return err
	}
	if res.Elements, err = strconv.ParseInt(s, 10, 64); err != nil || res.Elements <= 0 {
		return fmt.Errorf("bad element count %q: %w", s, ErrFormat)
	}
	if s, err = p.field("Precision"); err != nil {
		return err
	}
	if err := res.setPrecision(Precision(s)); err != nil {
		return err
	}
	if res.ArraySize, err = p.size("Array size", 1); err != nil {
		return err
	}
	if res.TotalSize, err = p.size("Total size", 3); err != nil {
		return err
	}
	if res.TotalSize.Unit != res.ArraySize.Unit {
		return fmt.Errorf("array size in %s but total size in %s: %w", res.ArraySize.Unit, res.TotalSize.Unit, ErrFormat)
	}
	return nil
}

// size parses "key: 2147.5 MB" and checks it against arrays × ArrayBytes.
func (p *humanParser) size(key string, arrays int64) (Size, error) {
	s, err := p.field(key)
	if err != nil {
		return Size{}, err
	}
	m := sizeValueRE.FindStringSubmatch(s)
	if m == nil {
		return Size{}, fmt.Errorf("bad %s %q: %w", strings.ToLower(key), s, ErrFormat)
	}
	v, err := strconv.ParseFloat(m[1], 64)
	if err != nil {
		return Size{}, fmt.Errorf("bad %s %q: %w", strings.ToLower(key), s, ErrFormat)
	}
	size := Size{Value: v, Unit: Unit(m[2])}
	exact := float64(arrays*p.res.ArrayBytes()) / size.Unit.Bytes()
	if math.Abs(exact-v) > 0.05+1e-12*exact {
		return Size{}, fmt.Errorf("%s %s does not match %d elements of %d bytes: %w",
			strings.ToLower(key), s, p.res.Elements, p.res.ElementBytes, ErrFormat)
	}
	return size, nil
}

// header parses the table header "Function    MB/s        Min (sec) ...".
func (p *humanParser) header(line string) error {
	f := strings.Fields(line)
	want := []string{"Function", "", "Min", "(sec)", "Max", "Average"}
	if len(f) != len(want) {
		return fmt.Errorf("bad table header %q: %w", line, ErrFormat)
	}
	for i, w := range want {
		if w != "" && f[i] != w {
			return fmt.Errorf("bad table header %q: %w", line, ErrFormat)
		}
	}
	u, ok := strings.CutSuffix(f[1], "/s")
	if !ok || Unit(u) != p.res.ArraySize.Unit {
		return fmt.Errorf("table unit %q does not match the array size unit %s: %w", f[1], p.res.ArraySize.Unit, ErrFormat)
	}
	p.res.Unit = Unit(u)
	return nil
}

// rows parses the table: exactly the kernels the selection runs, in the
// tool's order, and nothing after them.
func (p *humanParser) rows() error {
	for _, name := range expectedKernels(p.res.Selection) {
		line, err := p.next()
		if err != nil {
			return fmt.Errorf("kernel %s missing: %w", name, err)
		}
		f := strings.Fields(line)
		if len(f) != 5 || f[0] != name {
			return fmt.Errorf("want the %s row, got %q: %w", name, line, ErrFormat)
		}
		k, err := p.res.kernel(f[0], f[1], f[2], f[3], f[4])
		if err != nil {
			return err
		}
		p.res.Kernels = append(p.res.Kernels, k)
	}
	for p.n < len(p.lines) {
		if line, _ := p.next(); strings.TrimSpace(line) != "" {
			return fmt.Errorf("unexpected line after the table %q: %w", line, ErrFormat)
		}
	}
	return nil
}

// expectedKernels lists the kernels a selection prints, in order.
func expectedKernels(selection string) []string {
	switch selection {
	case "All":
		return kernelNames()
	case "Classic":
		return kernelNames()[:5]
	}
	return []string{selection}
}

// setPrecision records the precision and its element size.
func (r *Result) setPrecision(p Precision) error {
	switch p {
	case Float:
		r.ElementBytes = 4
	case Double:
		r.ElementBytes = 8
	default:
		return fmt.Errorf("unknown precision %q: %w", p, ErrFormat)
	}
	r.Precision = p
	return nil
}

// addDetail records an implementation-specific line, picking out the
// device name, index and driver where the implementation prints them.
func (r *Result) addDetail(line string) {
	if m := cudaDevRE.FindStringSubmatch(line); m != nil {
		r.DeviceName = m[2]
		if i, err := strconv.Atoi(m[1]); err == nil {
			r.DeviceIndex = i
		}
		return
	}
	if m := usingDevRE.FindStringSubmatch(line); m != nil {
		r.DeviceName = m[2]
		return
	}
	if m := driverRE.FindStringSubmatch(line); m != nil {
		r.Driver = m[1]
		return
	}
	r.Details = append(r.Details, line)
}

// kernel builds a Kernel from the printed name, bandwidth (in r.Unit) and
// min/max/average seconds, and checks that the figures are consistent.
func (r *Result) kernel(name, bw, minS, maxS, avgS string) (Kernel, error) {
	k := Kernel{Name: name, BytesMoved: kernelWeight(name) * r.ArrayBytes()}
	if k.BytesMoved == 0 {
		return Kernel{}, fmt.Errorf("unknown kernel %q: %w", name, ErrFormat)
	}
	var err error
	if k.Bandwidth, err = parseNumber(bw, 0, 0); err != nil {
		return Kernel{}, fmt.Errorf("%s bandwidth: %w: %w", name, err, ErrFormat)
	}
	if k.BandwidthBytesPerSec, err = toBytes(bw, r.Unit); err != nil {
		return Kernel{}, fmt.Errorf("%s bandwidth: %w: %w", name, err, ErrFormat)
	}
	for _, t := range []struct {
		dst *float64
		s   string
	}{{&k.MinSeconds, minS}, {&k.MaxSeconds, maxS}, {&k.AvgSeconds, avgS}} {
		if *t.dst, err = parseNumber(t.s, 0, 0); err != nil {
			return Kernel{}, fmt.Errorf("%s runtime: %w: %w", name, err, ErrFormat)
		}
	}
	if !(k.Bandwidth > 0) || k.MinSeconds < 0 || k.MinSeconds > k.AvgSeconds || k.AvgSeconds > k.MaxSeconds {
		return Kernel{}, fmt.Errorf("%s: inconsistent figures (bandwidth %s, min %s, avg %s, max %s): %w",
			name, bw, minS, avgS, maxS, ErrFormat)
	}
	return k, nil
}

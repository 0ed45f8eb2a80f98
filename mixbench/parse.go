package mixbench

import (
	"fmt"
	"io"
	"math"
	"regexp"
	"strconv"
	"strings"
)

// The lines of mixbench-cuda's output: its banner, the rules around its
// device specifications, its CSV block's marker and closing rule, its
// "key: value" lines and its memory line.
var (
	bannerRE   = regexp.MustCompile(`^mixbench \((.*)\)$`)
	specsRE    = regexp.MustCompile(`^-+ Device specifications -+$`)
	csvMarkRE  = regexp.MustCompile(`^-+ CSV data -+$`)
	ruleRE     = regexp.MustCompile(`^-+$`)
	keyValueRE = regexp.MustCompile(`^([A-Za-z][A-Za-z0-9 -]*): +(.*)$`)
	memInfoRE  = regexp.MustCompile(`^Total GPU memory (\d+), free (\d+)$`)
)

// The two CSV header lines, split at commas, trimmed and joined by "|".
const (
	csvHeader1 = "Experiment ID|Single Precision ops||||Double precision ops||||Half precision ops||||Integer operations|||"
	csvHeader2 = "Compute iters|Flops/byte|ex.time|GFLOPS|GB/sec|Flops/byte|ex.time|GFLOPS|GB/sec|Flops/byte|ex.time|GFLOPS|GB/sec|Iops/byte|ex.time|GIOPS|GB/sec"
)

// halfWarning is the line the tool prints when the device lacks fp16.
const halfWarning = "Half precision computations are not supported"

// Parse parses the complete output of mixbench-cuda: a missing or garbled
// field, an unclosed CSV block or an inconsistent row is an error, never
// a partial result.
func Parse(r io.Reader) (*Result, error) {
	lines, err := readLines(r)
	if err != nil {
		return nil, err
	}
	p := &parser{lines: lines, res: &Result{HalfSupported: true}}
	if err := p.parse(); err != nil {
		return nil, fmt.Errorf("mixbench: parse line %d: %w", max(p.n, 1), err)
	}
	return p.res, nil
}

// parser walks the lines; n is the 1-based number of the last line read.
type parser struct {
	lines []string
	n     int
	res   *Result
}

func (p *parser) next() (string, error) {
	if p.n >= len(p.lines) {
		return "", fmt.Errorf("output ends early (truncated): %w", ErrFormat)
	}
	p.n++
	return p.lines[p.n-1], nil
}

func (p *parser) parse() error {
	line, err := p.next()
	if err != nil {
		return err
	}
	m := bannerRE.FindStringSubmatch(line)
	if m == nil {
		return fmt.Errorf("want the banner %q, got %q: %w", "mixbench (...)", line, ErrFormat)
	}
	p.res.Version = m[1]
	if line, err = p.next(); err != nil || !specsRE.MatchString(line) {
		return fmt.Errorf("want the device specifications rule: %w", ErrFormat)
	}
	if err := p.specs(); err != nil {
		return err
	}
	if err := p.setup(); err != nil {
		return err
	}
	if err := p.csvHeader(); err != nil {
		return err
	}
	return p.rows()
}

func (p *parser) specs() error {
	fields := specFields(&p.res.Device)
	seen := map[string]bool{}
	for {
		line, err := p.next()
		if err != nil {
			return err
		}
		if ruleRE.MatchString(line) {
			break
		}
		m := keyValueRE.FindStringSubmatch(line)
		if m == nil {
			return fmt.Errorf("want a %q line, got %q: %w", "key: value", line, ErrFormat)
		}
		set, ok := fields[m[1]]
		if !ok {
			continue // a field a later mixbench may add; none we use
		}
		if seen[m[1]] {
			return fmt.Errorf("%s given twice: %w", m[1], ErrFormat)
		}
		seen[m[1]] = true
		if err := set(m[2]); err != nil {
			return fmt.Errorf("%s %q: %w: %w", m[1], m[2], err, ErrFormat)
		}
	}
	for key := range fields {
		if !seen[key] {
			return fmt.Errorf("device specifications lack %q: %w", key, ErrFormat)
		}
	}
	return nil
}

func (p *parser) setup() error {
	res := p.res
	fields := setupFields(res)
	seen := map[string]bool{}
	for {
		line, err := p.next()
		if err != nil {
			return err
		}
		if csvMarkRE.MatchString(line) {
			break
		}
		if m := memInfoRE.FindStringSubmatch(line); m != nil && !seen["memory"] {
			seen["memory"] = true
			total, err1 := strconv.ParseUint(m[1], 10, 64)
			free, err2 := strconv.ParseUint(m[2], 10, 64)
			if err1 != nil || err2 != nil || free > total {
				return fmt.Errorf("bad memory line %q: %w", line, ErrFormat)
			}
			res.TotalMemoryBytes, res.FreeMemoryBytes = total, free
			continue
		}
		m := keyValueRE.FindStringSubmatch(line)
		if m == nil {
			return fmt.Errorf("unexpected line %q: %w", line, ErrFormat)
		}
		set, ok := fields[m[1]]
		if !ok || seen[m[1]] {
			return fmt.Errorf("unexpected or repeated line %q: %w", line, ErrFormat)
		}
		seen[m[1]] = true
		if err := set(m[2]); err != nil {
			return fmt.Errorf("%s %q: %w: %w", m[1], m[2], err, ErrFormat)
		}
	}
	for _, key := range []string{"memory", "Buffer size", "Trade-off type", "Elements per thread", "Thread fusion degree"} {
		if !seen[key] {
			return fmt.Errorf("no %q line before the CSV data: %w", key, ErrFormat)
		}
	}
	return nil
}

func (p *parser) csvHeader() error {
	for _, want := range []string{csvHeader1, csvHeader2} {
		line, err := p.next()
		if err != nil {
			return err
		}
		if got := strings.Join(splitTrim(line), "|"); got != want {
			return fmt.Errorf("bad CSV header %q: %w", line, ErrFormat)
		}
	}
	return nil
}

// rows parses the CSV rows up to the closing rule, then blank lines only.
func (p *parser) rows() error {
	for {
		line, err := p.next()
		if err != nil {
			return fmt.Errorf("CSV block not closed: %w", err)
		}
		if ruleRE.MatchString(line) {
			break
		}
		row, err := p.row(line)
		if err != nil {
			return err
		}
		if n := len(p.res.Rows); n > 0 && row.ComputeIters <= p.res.Rows[n-1].ComputeIters {
			return fmt.Errorf("compute iterations %d after %d: %w", row.ComputeIters, p.res.Rows[n-1].ComputeIters, ErrFormat)
		}
		p.res.Rows = append(p.res.Rows, row)
	}
	if len(p.res.Rows) == 0 {
		return fmt.Errorf("CSV block has no rows: %w", ErrFormat)
	}
	for p.n < len(p.lines) {
		if line, _ := p.next(); strings.TrimSpace(line) != "" {
			return fmt.Errorf("unexpected line after the CSV block %q: %w", line, ErrFormat)
		}
	}
	return nil
}

func (p *parser) row(line string) (Row, error) {
	f := splitTrim(line)
	if len(f) != 1+4*int(numPrecisions) {
		return Row{}, fmt.Errorf("want 17 columns, got %d in %q: %w", len(f), line, ErrFormat)
	}
	var row Row
	iters, err := strconv.Atoi(f[0])
	if err != nil || iters < 0 {
		return Row{}, fmt.Errorf("bad compute iterations %q: %w", f[0], ErrFormat)
	}
	row.ComputeIters = iters
	for prec := Precision(0); prec < numPrecisions; prec++ {
		if prec == Half && !p.res.HalfSupported {
			continue // the tool prints inf/nan here
		}
		pt, err := point(f[1+4*prec : 5+4*prec])
		if err != nil {
			return Row{}, fmt.Errorf("compute iters %d, %s: %w: %w", iters, prec, err, ErrFormat)
		}
		row.Points[prec] = pt
	}
	return row, nil
}

// point converts one precision's columns to SI units and checks that
// ops/s ÷ bytes/s is the printed intensity, to the columns' rounding.
func point(f []string) (Point, error) {
	var pt Point
	var err error
	conv := []struct {
		dst   *float64
		pow10 int
	}{{&pt.OpsPerByte, 0}, {&pt.Seconds, -3}, {&pt.OpsPerSec, 9}, {&pt.BytesPerSec, 9}}
	for i, c := range conv {
		if *c.dst, err = parseNumber(f[i], c.pow10); err != nil {
			return Point{}, err
		}
	}
	if !(pt.OpsPerByte > 0 && pt.OpsPerSec > 0 && pt.BytesPerSec > 0) || pt.Seconds < 0 {
		return Point{}, fmt.Errorf("non-positive figure in %q", f)
	}
	gops, gbs := pt.OpsPerSec/1e9, pt.BytesPerSec/1e9
	slack := pt.OpsPerByte*(0.006/gbs+0.006/gops) + 0.0006
	if math.Abs(gops/gbs-pt.OpsPerByte) > slack {
		return Point{}, fmt.Errorf("throughput %s over bandwidth %s is not the intensity %s", f[2], f[3], f[0])
	}
	return pt, nil
}

func splitTrim(line string) []string {
	f := strings.Split(line, ",")
	for i := range f {
		f[i] = strings.TrimSpace(f[i])
	}
	return f
}

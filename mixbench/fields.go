package mixbench

import (
	"fmt"
	"io"
	"math"
	"regexp"
	"strconv"
	"strings"

	"github.com/everycycle/appraise/internal/crosscheck/toolrun"
)

var (
	versionRE = regexp.MustCompile(`^\d+\.\d+$`)
	totalSPRE = regexp.MustCompile(`^(\d+) \((\d+) MPs x (\d+) SPs/MP\)$`)
)

// specFields maps each required key of the device specifications to a
// setter on d.
func specFields(d *DeviceInfo) map[string]func(string) error {
	return map[string]func(string) error{
		"Device":              func(s string) error { d.Name = s; return nonEmpty(s) },
		"CUDA driver version": func(s string) error { return matchInto(&d.CUDADriverVersion, s, versionRE) },
		"GPU clock rate":      func(s string) error { return intUnit(&d.GPUClockMHz, s, " MHz") },
		"Memory clock rate":   func(s string) error { return intUnit(&d.MemoryClockMHz, s, " MHz") },
		"Memory bus width":    func(s string) error { return intUnit(&d.MemoryBusWidthBits, s, " bits") },
		"WarpSize":            func(s string) error { return intUnit(&d.WarpSize, s, "") },
		"L2 cache size":       func(s string) error { return intUnit(&d.L2CacheKiB, s, " KB") },
		"Total global mem":    func(s string) error { return intUnit(&d.GlobalMemoryMiB, s, " MB") },
		"ECC enabled":         func(s string) error { return yesNo(&d.ECC, s) },
		"Compute Capability":  func(s string) error { return matchInto(&d.ComputeCapability, s, versionRE) },
		"Total SPs":           func(s string) error { return totalSPs(d, s) },
		"Compute throughput": func(s string) error {
			return decimalUnit(&d.TheoreticalOpsPerSec, s, " GFlops (theoretical single precision FMAs)", 9)
		},
		"Memory bandwidth": func(s string) error { return decimalUnit(&d.TheoreticalBytesPerSec, s, " GB/sec", 9) },
	}
}

// setupFields maps the keys between the specifications and the CSV block
// to setters on res; all but "Warning" are required.
func setupFields(res *Result) map[string]func(string) error {
	return map[string]func(string) error{
		"Buffer size":          func(s string) error { return intUnit(&res.BufferMiB, s, "MB") },
		"Trade-off type":       func(s string) error { res.TradeOff = s; return nonEmpty(s) },
		"Elements per thread":  func(s string) error { return intUnit(&res.ElementsPerThread, s, "") },
		"Thread fusion degree": func(s string) error { return intUnit(&res.FusionDegree, s, "") },
		"Warning": func(s string) error {
			if s != halfWarning {
				return fmt.Errorf("unknown warning")
			}
			res.HalfSupported = false
			return nil
		},
	}
}

func nonEmpty(s string) error {
	if s == "" {
		return fmt.Errorf("empty")
	}
	return nil
}

func matchInto(dst *string, s string, re *regexp.Regexp) error {
	if !re.MatchString(s) {
		return fmt.Errorf("want the form %s", re)
	}
	*dst = s
	return nil
}

// intUnit parses a non-negative decimal integer followed by unit.
func intUnit(dst *int, s, unit string) error {
	digits, ok := strings.CutSuffix(s, unit)
	if !ok || digits == "" || strings.Trim(digits, "0123456789") != "" {
		return fmt.Errorf("want a whole number%s", unit)
	}
	v, err := strconv.Atoi(digits)
	if err != nil {
		return err
	}
	*dst = v
	return nil
}

func decimalUnit(dst *float64, s, unit string, pow10 int) error {
	num, ok := strings.CutSuffix(s, unit)
	if !ok {
		return fmt.Errorf("want a number%s", unit)
	}
	v, err := parseNumber(num, pow10)
	if err != nil {
		return err
	}
	*dst = v
	return nil
}

func yesNo(dst *bool, s string) error {
	switch s {
	case "Yes":
		*dst = true
	case "No":
		*dst = false
	default:
		return fmt.Errorf("want Yes or No")
	}
	return nil
}

// totalSPs parses "16896 (132 MPs x 128 SPs/MP)" and checks the product.
func totalSPs(d *DeviceInfo, s string) error {
	m := totalSPRE.FindStringSubmatch(s)
	if m == nil {
		return fmt.Errorf("want the form N (M MPs x K SPs/MP)")
	}
	var v [3]int
	for i := range v {
		n, err := strconv.Atoi(m[i+1])
		if err != nil {
			return err
		}
		v[i] = n
	}
	if v[0] != v[1]*v[2] {
		return fmt.Errorf("%d is not %d x %d", v[0], v[1], v[2])
	}
	d.TotalSPs, d.SMs, d.SPsPerSM = v[0], v[1], v[2]
	return nil
}

func readLines(r io.Reader) ([]string, error) {
	lines, err := toolrun.ReadLines(r)
	if err != nil {
		return nil, fmt.Errorf("mixbench: %w: %w", ErrFormat, err)
	}
	return lines, nil
}

// parseNumber parses a decimal as printf's %f writes it, scaled by
// 10^pow10 and rounded once.
func parseNumber(s string, pow10 int) (float64, error) {
	if s == "" || strings.Trim(s, "0123456789.") != "" || strings.Count(s, ".") > 1 || s == "." {
		return 0, fmt.Errorf("%q is not a number", s)
	}
	v, err := strconv.ParseFloat(s+"e"+strconv.Itoa(pow10), 64)
	if err != nil || math.IsInf(v, 0) {
		return 0, fmt.Errorf("%q is out of range", s)
	}
	return v, nil
}

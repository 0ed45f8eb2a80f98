package babelstream

import (
	"fmt"
	"regexp"
	"strconv"
)

var (
	cudaDevRE  = regexp.MustCompile(`^CUDA Device (\d+): "([^"]*)"`)
	usingDevRE = regexp.MustCompile(`^Using (HIP|OpenCL|SYCL|CUDA|HC) device:? (.+)$`)
	driverRE   = regexp.MustCompile(`^(?:CUDA )?Driver: (.+)$`)
)

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

// addDetail records an implementation's line: its device or driver, or a
// detail.
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

// kernel builds a Kernel from a row's printed figures and checks them.
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

// Package mixbench runs mixbench-cuda (ekondis/mixbench) and parses what
// it prints. Start with Parse: a Result whose rows carry, per precision,
// intensity, time, throughput and bandwidth in SI units; PeakOps gives
// the figures the cross-check compares.
package mixbench

import (
	"errors"
	"fmt"
)

// ErrFormat is wrapped by every error about input Parse rejects.
var ErrFormat = errors.New("not mixbench-cuda output")

// Precision is one of the four column groups of mixbench's CSV block.
type Precision int

// The precisions, in the order of the CSV block's column groups: fp32
// FMA, fp64 FMA, fp16 FMA on half2 (two flops per lane), int32 MAD.
const (
	Single Precision = iota
	Double
	Half
	Int
	numPrecisions
)

// String names the precision.
func (p Precision) String() string {
	switch p {
	case Single:
		return "single"
	case Double:
		return "double"
	case Half:
		return "half"
	case Int:
		return "int"
	}
	return fmt.Sprintf("Precision(%d)", int(p))
}

// Point is one precision's measurement at one compute-iteration count.
type Point struct {
	// OpsPerByte is the intensity: operations per byte of global memory.
	OpsPerByte float64
	// Seconds is the kernel time, in seconds (printed in 10 µs steps).
	Seconds float64
	// OpsPerSec is the throughput, in operations per second.
	OpsPerSec float64
	// BytesPerSec is the global-memory bandwidth, in bytes per second.
	BytesPerSec float64
}

// Row is one line of the CSV block.
type Row struct {
	// ComputeIters is the kernel's compute iterations per memory access.
	ComputeIters int
	// Points holds a Point per Precision; Half's is zero without fp16.
	Points [numPrecisions]Point
}

// DeviceInfo is the "Device specifications" header (the tool's reading
// of cudaGetDeviceProperties).
type DeviceInfo struct {
	// Name, CUDADriverVersion ("13.0") and ComputeCapability ("9.0") are
	// as printed.
	Name, CUDADriverVersion, ComputeCapability string
	// GPUClockMHz and MemoryClockMHz (as printed) are in MHz.
	GPUClockMHz, MemoryClockMHz int
	// MemoryBusWidthBits is in bits, WarpSize in threads.
	MemoryBusWidthBits, WarpSize int
	// L2CacheKiB is in KiB, GlobalMemoryMiB in MiB (printed "KB", "MB").
	L2CacheKiB, GlobalMemoryMiB int
	// ECC reports whether ECC is enabled.
	ECC bool
	// TotalSPs is SMs × SPsPerSM (the tool's table of fp32 lanes).
	TotalSPs, SMs, SPsPerSM int
	// TheoreticalOpsPerSec (fp32 FMA, ops/s) and TheoreticalBytesPerSec
	// (bytes/s) are the tool's peaks from clocks, lanes and bus width.
	TheoreticalOpsPerSec, TheoreticalBytesPerSec float64
}

// Result is one mixbench-cuda run.
type Result struct {
	// Version is the git revision in the banner, "" when none.
	Version string
	// Device is the device header.
	Device DeviceInfo
	// TotalMemoryBytes and FreeMemoryBytes are cudaMemGetInfo's, in bytes.
	TotalMemoryBytes, FreeMemoryBytes uint64
	// BufferMiB is the benchmark buffer, in MiB (printed "MB").
	BufferMiB int
	// TradeOff, ElementsPerThread and FusionDegree describe the kernel.
	TradeOff                        string
	ElementsPerThread, FusionDegree int
	// HalfSupported is false when the tool warned the device has no fp16.
	HalfSupported bool
	// Rows are the CSV rows, in increasing ComputeIters.
	Rows []Row
}

// Point returns the row's Point for p and whether p is a valid precision.
func (r Row) Point(p Precision) (Point, bool) {
	if p < 0 || p >= numPrecisions {
		return Point{}, false
	}
	return r.Points[p], true
}

// Supported reports whether the run measured precision p.
func (r *Result) Supported(p Precision) bool {
	return p >= 0 && p < numPrecisions && (p != Half || r.HalfSupported)
}

// PeakOps returns the highest throughput of any row at p, in operations
// per second; 0 when the run did not measure p.
func (r *Result) PeakOps(p Precision) float64 {
	if !r.Supported(p) {
		return 0
	}
	peak := 0.0
	for _, row := range r.Rows {
		peak = max(peak, row.Points[p].OpsPerSec)
	}
	return peak
}

// PeakBandwidth returns the highest global-memory bandwidth of any row
// and measured precision, in bytes per second.
func (r *Result) PeakBandwidth() float64 {
	peak := 0.0
	for p := Precision(0); p < numPrecisions; p++ {
		if !r.Supported(p) {
			continue
		}
		for _, row := range r.Rows {
			peak = max(peak, row.Points[p].BytesPerSec)
		}
	}
	return peak
}

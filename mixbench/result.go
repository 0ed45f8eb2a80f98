// Package mixbench runs mixbench-cuda (ekondis/mixbench) and parses what it
// prints, for the cross-check of our roofline and peak-throughput probes.
//
// Start with Parse: it reads the device header and the block between the
// "CSV data" marker and the closing rule into a Result whose rows carry,
// per precision, operational intensity, kernel time, throughput and
// bandwidth in SI units. PeakOps and PeakBandwidth give the figures the
// cross-check compares. Run and RunDevice execute the tool with a timeout.
// The parser is a pure function; nothing here links to the tool.
package mixbench

import (
	"errors"
	"fmt"
)

// ErrFormat is wrapped by every error that reports input Parse does not
// accept: truncated, garbled or of another format.
var ErrFormat = errors.New("not mixbench-cuda output")

// Precision is one of the four column groups of mixbench's CSV block.
type Precision int

// The precisions, in the order of the CSV block's column groups.
const (
	// Single is fp32 FMA ("Single Precision ops").
	Single Precision = iota
	// Double is fp64 FMA ("Double precision ops").
	Double
	// Half is fp16 on half2 vectors ("Half precision ops"), two flops per
	// lane per FMA.
	Half
	// Int is 32-bit integer multiply-add ("Integer operations").
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
	// OpsPerByte is the operational intensity the tool printed
	// ("Flops/byte" or "Iops/byte"): operations per byte of global memory
	// traffic.
	OpsPerByte float64
	// Seconds is the kernel time, printed by the tool in milliseconds with
	// two decimals (so a resolution of 10 µs).
	Seconds float64
	// OpsPerSec is the throughput, printed as GFLOPS or GIOPS (10^9/s).
	OpsPerSec float64
	// BytesPerSec is the global-memory bandwidth, printed as GB/sec
	// (10^9 bytes/s).
	BytesPerSec float64
}

// Row is one line of the CSV block.
type Row struct {
	// ComputeIters is the kernel's compute iterations per memory access
	// ("Compute iters").
	ComputeIters int
	// Points holds one Point per precision, indexed by Precision. The Half
	// entry is zero when Result.HalfSupported is false.
	Points [numPrecisions]Point
}

// DeviceInfo is the "Device specifications" header, as the tool prints it
// from cudaGetDeviceProperties.
type DeviceInfo struct {
	// Name is the device name, e.g. "NVIDIA H200".
	Name string
	// CUDADriverVersion is the CUDA driver API version, e.g. "13.0".
	CUDADriverVersion string
	// GPUClockMHz is the GPU clock in MHz.
	GPUClockMHz int
	// MemoryClockMHz is the memory clock in MHz as printed (the tool halves
	// the attribute).
	MemoryClockMHz int
	// MemoryBusWidthBits is the memory bus width in bits.
	MemoryBusWidthBits int
	// WarpSize is the warp size in threads.
	WarpSize int
	// L2CacheKiB is the L2 size printed as "KB"; the tool divides bytes by
	// 1024, so the unit is KiB.
	L2CacheKiB int
	// GlobalMemoryMiB is the global memory printed as "MB"; the tool
	// divides bytes by 1024*1024 (truncating), so the unit is MiB.
	GlobalMemoryMiB int
	// ECC reports whether ECC is enabled.
	ECC bool
	// ComputeCapability is "major.minor", e.g. "9.0".
	ComputeCapability string
	// TotalSPs is SMs × SPsPerSM.
	TotalSPs int
	// SMs is the number of multiprocessors.
	SMs int
	// SPsPerSM is the tool's own table of FP32 lanes per multiprocessor.
	SPsPerSM int
	// TheoreticalOpsPerSec is the tool's fp32 FMA peak from clocks and
	// lanes ("Compute throughput", GFlops), in operations per second.
	TheoreticalOpsPerSec float64
	// TheoreticalBytesPerSec is the tool's memory bandwidth from clock and
	// bus width ("Memory bandwidth", GB/sec), in bytes per second.
	TheoreticalBytesPerSec float64
}

// Result is one mixbench-cuda run.
type Result struct {
	// Version is the text in "mixbench (...)": the git revision the tool
	// was built from, empty when the build had none.
	Version string
	// Device is the device header.
	Device DeviceInfo
	// TotalMemoryBytes is cudaMemGetInfo's total, in bytes.
	TotalMemoryBytes uint64
	// FreeMemoryBytes is cudaMemGetInfo's free memory, in bytes.
	FreeMemoryBytes uint64
	// BufferMiB is the benchmark buffer size, printed as "MB" but computed
	// by dividing by 1024*1024.
	BufferMiB int
	// TradeOff names the benchmark kind, e.g. "compute with global memory
	// (block strided)".
	TradeOff string
	// ElementsPerThread is the kernel's elements per thread.
	ElementsPerThread int
	// FusionDegree is the kernel's thread fusion degree.
	FusionDegree int
	// HalfSupported is false when the tool warned that the device has no
	// fp16 arithmetic; the Half columns are then meaningless.
	HalfSupported bool
	// Rows are the CSV rows in printed order (increasing ComputeIters).
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

// PeakOps returns the highest throughput over all rows for precision p, in
// operations per second (the GFLOPS/GIOPS column × 10^9); 0 when the run
// did not measure p.
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

// PeakBandwidth returns the highest global-memory bandwidth over all rows
// and measured precisions, in bytes per second (GB/sec × 10^9). It comes
// from the low-intensity rows and is usually below what a pure streaming
// benchmark such as BabelStream reaches.
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

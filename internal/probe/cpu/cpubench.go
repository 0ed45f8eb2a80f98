// Package cpu measures the host CPU's own capability vector for the
// box report (seed backend 4, the CPU baseline): memory bandwidth with all
// cores and floating-point throughput, every figure checked against a
// reference before it counts.
//
// Start with Probe (probe.go), which the orchestrator runs, or Measure
// and its Options; the Result carries one Bandwidth row per streaming
// kernel and one Throughput row per FMA kernel, and Result.Baseline is
// what the box report carries. Then:
//
//   - stream.go: the bandwidth kernels (read, write, copy, triad; bytes per
//     element in streamTable), check.go and stream_check.go their closed
//     forms and checks;
//   - fma.go: the FMA throughput chains, the operation-count table
//     (opsPerLane) and the rounding argument behind their exact check;
//   - kernels.go and kernels.c: the cgo boundary and the C loops, with the
//     run-time choice of ISA path (avx512f, avx2+fma, sse2 on amd64; neon
//     on arm64; scalar elsewhere);
//   - sizing.go and cache.go: how big the arrays are (from MemAvailable or
//     the limit and the cache sizes sysfs reports, never from a CPU
//     model); calibrate.go: sample length and statistics.
//
// Timing is the host monotonic clock around all threads
// (schema.TimingHostWallClock). Threads are not pinned to cores: Go offers
// no affinity API, so each worker goroutine sits on its own OS thread for
// the length of its cgo call and the kernel's scheduler places it. A
// warm-up (calibration) run precedes the timed samples and is discarded.
package cpu

import (
	"context"
	"errors"
	"fmt"
	"runtime"

	"github.com/everycycle/appraise/internal/platform/host"
	"github.com/everycycle/appraise/schema"
)

// Timing is how every duration of this package is measured.
const Timing = schema.TimingHostWallClock

// Options configures Measure. The zero value measures with every CPU.
type Options struct {
	// Quick takes 3 samples instead of 5 and smaller arrays (twice the
	// last-level cache each, at least 64 MiB), so that the probe ends
	// within seconds on a small host.
	Quick bool
	// Threads is the number of threads; 0 means runtime.NumCPU().
	Threads int
	// MemoryLimit is the most bytes the arrays may take together. 0 lets
	// the probe choose: 1 GiB, or more where the last-level cache (from
	// sysfs) is over 85 MiB, as each array is kept at 4 times the cache;
	// never over 1/4 of the memory the process may use (MemAvailable, or
	// its memory cgroup's room below the limit when smaller). An explicit
	// limit is still kept below half of that. Where arrays would be under
	// twice the cache (or 64 MiB), the bandwidth kernels do not run and
	// Result.BandwidthOmitted says why: their figures would be the
	// cache's, not memory's.
	MemoryLimit uint64
	// Root is the directory sysfs and procfs are read below (cache
	// topology, meminfo, cgroups); "" is the running system.
	Root string

	// isa forces an ISA path by name (tests); "" picks the best.
	isa string
	// corrupt names a kernel ("copy", "fma/fp32/vector", ...) whose output
	// is spoiled before its check (fault-injection tests).
	corrupt string
}

// Result is the CPU's capability vector.
type Result struct {
	// Threads is the number of threads every kernel ran on.
	Threads int
	// ISA names the code path the FMA kernels ran: "avx512f", "avx2+fma",
	// "sse2" (no FMA instruction), "neon" or "scalar".
	ISA string
	// Timing is how every sample was timed: schema.TimingHostWallClock,
	// around all threads together (not pinned to cores).
	Timing schema.TimingMethod
	// Bandwidth has one row per streaming kernel: read, write, copy, triad;
	// none when BandwidthOmitted says why.
	Bandwidth []Bandwidth
	// BandwidthOmitted, when not empty, says why no bandwidth kernel ran:
	// the arrays that fit the memory the process may use would not be
	// larger than the caches.
	BandwidthOmitted string
	// LastLevelCacheBytes is the last-level cache sysfs describes, every
	// instance counted once (0: none described); each array is at least
	// twice this.
	LastLevelCacheBytes uint64
	// Throughput has one row per FMA kernel: scalar fp64, vector fp64,
	// vector fp32.
	Throughput []Throughput
}

// Bandwidth is one streaming kernel's sustained memory bandwidth with all
// threads, each streaming its own contiguous slice.
type Bandwidth struct {
	// Kernel is "read" (sum), "write" (fill), "copy" or "triad".
	Kernel string
	// BytesPerS is bytes moved per second (decimal: 1 GB/s = 1e9), counted
	// as BytesPerElement per element index per pass.
	BytesPerS schema.Stat
	// ArrayBytes is the size of each of the three arrays, in bytes.
	ArrayBytes uint64
	// BytesPerElement is the bytes one element index moves: 8 per array
	// read or written (read 8, write 8, copy 16, triad 24).
	BytesPerElement int
	// Checked is the number of output values compared with the reference.
	Checked uint64
	// MaxError is the largest relative error seen.
	MaxError float64
	// Tolerance is the relative error the check allowed (0: exact).
	Tolerance float64
}

// Throughput is one FMA kernel's floating-point rate with all threads.
type Throughput struct {
	// Operation is "fma"; it counts 2 operations per lane.
	Operation string
	// InputType is "fp32" or "fp64".
	InputType string
	// Vector is true for the SIMD kernels, false for the scalar one.
	Vector bool
	// Lanes is the number of values one instruction works on.
	Lanes int
	// OpsPerS is floating-point operations per second, all threads.
	OpsPerS schema.Stat
	// Checked is the number of result values compared with the reference.
	Checked uint64
	// MaxError is the largest relative error seen (0: the check is exact).
	MaxError float64
	// Tolerance is the relative error the check allowed (0: exact).
	Tolerance float64
}

// Measure runs the bandwidth kernels, then the FMA kernels, and returns
// their checked figures. A failed check returns an error wrapping
// ErrCheckFailed and no figures. Too little memory for arrays larger
// than the caches leaves the bandwidth figures out, with the reason in
// Result.BandwidthOmitted.
func Measure(ctx context.Context, o Options) (*Result, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("cpubench: %w", err)
	}
	threads := o.Threads
	if threads == 0 {
		threads = runtime.NumCPU()
	}
	if threads < 0 {
		return nil, fmt.Errorf("cpubench: %d threads", threads)
	}
	path, err := parseISA(o.isa)
	if err != nil {
		return nil, err
	}
	plan := planFor(o.Quick)
	llc, err := lastLevelCache(o.Root)
	if err != nil {
		return nil, err
	}
	r := &Result{Threads: threads, ISA: path.String(), Timing: Timing, LastLevelCacheBytes: llc}
	layout, err := sizeArrays(o, threads, llc)
	switch {
	case errors.Is(err, ErrTooLittleMemory):
		r.BandwidthOmitted = err.Error()
	case err != nil:
		return nil, err
	default:
		if r.Bandwidth, err = measureBandwidth(ctx, o, layout, plan); err != nil {
			return nil, err
		}
	}
	if r.Throughput, err = measureThroughput(ctx, o, path, threads, plan); err != nil {
		return nil, err
	}
	return r, nil
}

// sizeArrays lays the bandwidth arrays out over threads within the memory
// the process may use, each at least twice the last-level cache of llc
// bytes (ErrTooLittleMemory, naming what bound the memory, otherwise).
func sizeArrays(o Options, threads int, llc uint64) (arrayLayout, error) {
	mem, memErr := host.ReadMemory(o.Root)
	budget, err := arrayBudget(o.MemoryLimit, mem.UsableBytes, llc, o.Quick)
	if err != nil {
		return arrayLayout{}, errors.Join(err, memErr)
	}
	layout, err := layoutArrays(budget, threads, minArray(llc))
	if errors.Is(err, ErrTooLittleMemory) {
		return arrayLayout{}, fmt.Errorf("%w (%s, last-level cache %d MiB): a figure would measure cache, not memory", err, mem, llc/mib)
	}
	return layout, err
}

// measureBandwidth maps the arrays, runs every streaming kernel and
// unmaps them.
func measureBandwidth(ctx context.Context, o Options, layout arrayLayout, plan samplePlan) (_ []Bandwidth, err error) {
	s, err := newStreamBench(layout, plan, o.corrupt)
	if err != nil {
		return nil, err
	}
	defer func() {
		if rerr := s.release(); rerr != nil && err == nil {
			err = rerr
		}
	}()
	var out []Bandwidth
	for _, spec := range streamTable() {
		b, err := s.measure(ctx, spec)
		if err != nil {
			return nil, err
		}
		out = append(out, b)
	}
	return out, nil
}

// measureThroughput runs every FMA kernel the ISA path has.
func measureThroughput(ctx context.Context, o Options, path isa, threads int, plan samplePlan) ([]Throughput, error) {
	var out []Throughput
	for _, spec := range fmaTable() {
		if _, ok := fmaShape(path, spec.kind); !ok {
			continue // e.g. no vector kernels on the scalar path
		}
		corrupt := o.corrupt == spec.label()
		var t Throughput
		var err error
		if spec.inputType == "fp32" {
			t, err = runFMA[float32](ctx, spec, path, threads, corrupt, plan)
		} else {
			t, err = runFMA[float64](ctx, spec, path, threads, corrupt, plan)
		}
		if err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	return out, nil
}

// runFMA probes fusion and measures one FMA kernel in precision T.
func runFMA[T float32 | float64](ctx context.Context, spec fmaSpec, path isa, threads int, corrupt bool, plan samplePlan) (Throughput, error) {
	b, err := newFMABench[T](spec, path, threads, corrupt)
	if err != nil {
		return Throughput{}, err
	}
	if err := b.probeFused(); err != nil {
		return Throughput{}, err
	}
	return b.measure(ctx, plan)
}

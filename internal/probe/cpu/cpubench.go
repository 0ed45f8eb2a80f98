// Package cpu measures the host CPU's baseline for the box report: memory
// bandwidth with all cores and floating-point throughput, from C kernels with a
// run-time choice of ISA path, every figure checked against a closed form
// before it counts. Start with Probe, or Measure and its Options.
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
	Effort  Effort // the zero value is the full probe
	Threads int    // 0 means runtime.NumCPU()
	// MemoryLimit is the most bytes the arrays may take together; 0 lets the
	// probe choose. Arrays not twice the cache leave bandwidth out.
	MemoryLimit uint64
	Root        string // sysfs and procfs are read below it; "" is the running system

	isa     string // forces an ISA path by name (tests); "" picks the best
	corrupt string // a kernel ("copy", "fma/fp32/vector") whose output is spoiled (tests)
}

// Effort trims the probe's work; each zero field keeps the default.
type Effort struct {
	Samples   int     // timed samples per kernel; 0 means 5
	SampleS   float64 // each sample's target length, at least 0.052 s; 0 means 0.075 s
	ArrayLLCs uint64  // without MemoryLimit, each array is this many last-level caches, at least 2 and 64 MiB; 0 means 4 and 1 GiB in all
}

// Result is the CPU's capability vector.
type Result struct {
	Threads             int                 // every kernel ran on this many
	ISA                 string              // the FMA path: "avx512f", "avx2+fma", "sse2", "neon" or "scalar"
	Timing              schema.TimingMethod // schema.TimingHostWallClock, around all threads
	Bandwidth           []Bandwidth         // read, write, copy, triad; none when BandwidthOmitted
	BandwidthOmitted    string              // why no bandwidth kernel ran, when none did
	LastLevelCacheBytes uint64              // each instance counted once; 0 when none is described
	Throughput          []Throughput        // scalar fp64, vector fp64, vector fp32
}

// Bandwidth is one streaming kernel's bandwidth, each thread on its own slice.
type Bandwidth struct {
	Kernel          string      // "read" (sum), "write" (fill), "copy" or "triad"
	BytesPerS       schema.Stat // decimal bytes/s, BytesPerElement per element per pass
	ArrayBytes      uint64      // each of the three arrays
	BytesPerElement int         // 8 per array read or written
	Checked         uint64      // output values compared with the reference
	MaxError        float64     // the largest relative error
	Tolerance       float64     // the relative error allowed, 0: exact
}

// Throughput is one FMA kernel's floating-point rate with all threads.
type Throughput struct {
	Operation string      // "fma", 2 operations per lane
	InputType string      // "fp32" or "fp64"
	Vector    bool        // SIMD, not scalar
	Lanes     int         // values one instruction works on
	OpsPerS   schema.Stat // operations/s, all threads
	Checked   uint64      // result values compared with the reference
	MaxError  float64     // the largest relative error
	Tolerance float64     // the relative error allowed, 0: exact
}

// Measure runs the bandwidth kernels, then the FMA kernels, and returns their
// checked figures; a failed check is an error wrapping ErrCheckFailed. Too
// little memory for arrays larger than the caches leaves bandwidth out.
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
	plan := planFor(o.Effort)
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

// sizeArrays lays the arrays out over threads within the memory the process may
// use, each at least twice the last-level cache, else ErrTooLittleMemory.
func sizeArrays(o Options, threads int, llc uint64) (arrayLayout, error) {
	mem, memErr := host.ReadMemory(o.Root)
	budget, err := arrayBudget(o.MemoryLimit, mem.UsableBytes, llc, o.Effort.ArrayLLCs)
	if err != nil {
		return arrayLayout{}, errors.Join(err, memErr)
	}
	layout, err := layoutArrays(budget, threads, minArray(llc))
	if errors.Is(err, ErrTooLittleMemory) {
		return arrayLayout{}, fmt.Errorf("%w (%s, last-level cache %d MiB): a figure would measure cache, not memory", err, mem, llc/mib)
	}
	return layout, err
}

// measureBandwidth maps the arrays, runs every streaming kernel and unmaps them.
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

// runFMA checks the kernel's fusion, then measures it in precision T.
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

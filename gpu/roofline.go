package gpu

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/everycycle/appraise/internal/measure/roofline"
	"github.com/everycycle/appraise/schema"
)

// RooflineKernel is one row of the roofline table: a precision's sweep
// kernel and how its operations and bytes are counted.
type RooflineKernel struct {
	// Precision names the sweep like the precision figures: "fma.fp32",
	// "mad.int32".
	Precision string
	// Entry and Fill are its entry points in wgsl/roofline.wgsl: the sweep
	// kernel and the kernel that writes its input.
	Entry, Fill string
	// Unroll is the counted operations per scalar of one trip of Entry's
	// main loop; Short is the entry point that runs the same operations
	// one to a trip, which a software adapter runs for points of 2 to
	// Unroll-1 operations (Entry's loop bodies run there even when they
	// have no trip to make: wgsl/roofline.wgsl).
	Unroll uint32
	Short  string
	// One is the entry point that runs one counted operation per scalar
	// with no loop at all, which a software adapter runs for its 1-op
	// point, the sweep's most memory-bound, whose rate sets the memory
	// roof (rooflineRun.entry says why).
	One string
	// Counted is the WGSL operation the table counts.
	Counted string
	// OpsPerOperation is the operations one counted operation on one
	// scalar counts for.
	OpsPerOperation int
	// BytesPerElement is the device-memory bytes one scalar element moves:
	// bytes read plus bytes written.
	BytesPerElement int

	kind rooflineKind
}

// Intensity is the arithmetic intensity of a sweep point running iters
// counted operations per scalar element, in operations per byte:
// OpsPerOperation*iters / BytesPerElement.
func (k RooflineKernel) Intensity(iters uint32) float64 {
	return float64(k.OpsPerOperation) * float64(iters) / float64(k.BytesPerElement)
}

// RooflineKernels returns the table, in the order the probe sweeps it.
// Operations are counted as the ALU table counts them (an FMA or an
// integer multiply-add is 2), bytes as bytes read plus bytes written:
//
//	precision  counted WGSL operation        ops/op  bytes/element  intensity
//	fma.fp32   fma(x, a, b) on vec4<f32>     2       4 + 4          iters/4
//	mad.int32  x*a + y on vec2<i32>          2       4 + 4          iters/4
//
// where iters is the counted operations per scalar element, the sweep's
// knob. The arrays hold vec4 elements; each invocation handles four.
func RooflineKernels() []RooflineKernel {
	return []RooflineKernel{
		{Precision: "fma.fp32", Entry: "roofline_f32", Fill: "roofline_fill_f32", Unroll: 16, Short: "roofline_f32_short", One: "roofline_f32_one",
			Counted: "fma(x, a, b) on vec4<f32>", OpsPerOperation: 2, BytesPerElement: 8, kind: roofF32},
		{Precision: "mad.int32", Entry: "roofline_i32", Fill: "roofline_fill_i32", Unroll: 8, Short: "roofline_i32_short", One: "roofline_i32_one",
			Counted: "x*a + y on vec2<i32>", OpsPerOperation: 2, BytesPerElement: 8, kind: roofI32},
	}
}

// RooflineIters are the counted operations per scalar element of the
// sweep's points: 1 to 1024, doubling, i.e. 0.25 to 256 operations per byte.
// That spans memory-bound (below a large GPU's fp32 ridge) to well past
// the ridge of any GPU, where compute binds.
func RooflineIters() []uint32 {
	var its []uint32
	for it := uint32(1); it <= 1024; it *= 2 {
		its = append(its, it)
	}
	return its
}

// RooflineOptions says what MeasureRoofline sweeps.
type RooflineOptions struct {
	// Precisions selects rows of RooflineKernels by Precision; empty means
	// all of them.
	Precisions []string
	// MaxArrayBytes caps each of the two arrays, in bytes; 0 means 1 GiB.
	// It may not be below 64 MiB, the smallest array the probe accepts
	// (smaller ones could sit in a last-level cache).
	MaxArrayBytes uint64
}

// RooflinePoint is one intensity of a sweep.
type RooflinePoint struct {
	// Iters is the counted operations per scalar element.
	Iters uint32
	// Intensity is operations per byte of device memory moved.
	Intensity float64
	// OpsPerS is the median of the samples, in operations/s;
	// MinOpsPerS and MaxOpsPerS their extremes.
	OpsPerS, MinOpsPerS, MaxOpsPerS float64
	// Samples is the number of timed samples.
	Samples int
	// Elements is the scalar elements one dispatch processes.
	Elements uint64
	// DispatchesPerSample is the number of dispatches in one sample.
	DispatchesPerSample int
}

// RooflineResult is one precision's sweep. Analyse holds it against its
// own roofline.
type RooflineResult struct {
	// Precision names the row of RooflineKernels.
	Precision string
	// Points are the sweep's points in increasing intensity.
	Points []RooflinePoint
	// Timing says how the samples were timed.
	Timing schema.TimingMethod
	// ArrayBytes is the size of each of the two arrays, in bytes; a point
	// whose dispatch would have been too long used a prefix of them
	// (RooflinePoint.Elements).
	ArrayBytes uint64
	// Checked is the scalar outputs compared exactly with the closed form,
	// over all points: every element of every point's last sample.
	Checked uint64
}

// Analyse computes the sweep's roofline model and ratios (package
// internal/roofline).
func (r RooflineResult) Analyse() (roofline.Analysis, error) {
	ps := make([]roofline.Point, len(r.Points))
	for i, p := range r.Points {
		ps[i] = roofline.Point{Intensity: p.Intensity, OpsPerS: p.OpsPerS}
	}
	return roofline.Analyse(ps)
}

// rooflineLimits bounds the roofline probe.
type rooflineLimits struct {
	// cal bounds each point's samples; MaxDispatchS is the longest a
	// dispatch may take before the point uses a smaller prefix of the
	// arrays (never below MinArrayBytes).
	cal calibrationLimits
	// MinArrayBytes and MaxArrayBytes bound each array.
	MinArrayBytes, MaxArrayBytes uint64
	// Iters are the sweep's points.
	Iters []uint32
	// WarmUp is the sustained load before each precision's sweep;
	// PointWarmUp the load before each point's samples (clocks can drop
	// while the host checks the previous point).
	WarmUp, PointWarmUp time.Duration
	// hidden, when set, runs roofline_f32_hidden with hidden(iters)
	// uncounted FMA quads per scalar: a degraded device for the tests.
	hidden func(iters uint32) uint32
	// noShort, when set, runs each row's Entry at every point, on a
	// software adapter too (the tests check both kernels there).
	noShort bool
}

// Sizing rules of the roofline probe: the workgroup's block of vec4
// elements (wgsl/roofline.wgsl) and the per-point warm-up.
const (
	roofBlock       = 1024
	roofPointWarmUp = 100 * time.Millisecond
)

// newRooflineLimits are the probe's limits for o and the device's mode.
func newRooflineLimits(o RooflineOptions, quick bool) rooflineLimits {
	l := rooflineLimits{
		cal: calibrationLimits{
			MinSampleS: 5e-3, LaunchFactor: 20, MaxDispatchS: 0.1,
			MinElements: 1, ElementStep: roofBlock, // point() sets MinElements from MinArrayBytes
			MaxIterations: 4096, BudgetS: 0.15, MinSamples: 3, MaxSamples: 10,
		},
		MinArrayBytes: minArrayBytes, MaxArrayBytes: maxArrayBytes,
		Iters: RooflineIters(), WarmUp: warmUp, PointWarmUp: roofPointWarmUp,
	}
	if o.MaxArrayBytes > 0 {
		l.MaxArrayBytes = o.MaxArrayBytes
	}
	if quick {
		l.cal.BudgetS, l.cal.MaxSamples = 0.1, 5
		l.Iters = quickIters(l.Iters)
		l.MinArrayBytes = quickMinArrayBytes
	}
	return l
}

// quickMinArrayBytes is how far a --quick point may shrink its arrays. A
// point shrinks only when one dispatch over the full arrays would run past
// MaxDispatchS and its compute alone take more than roofComputeBound
// times the first point's (pointSizes), so what shrinks is compute-bound,
// its memory traffic a small share of its time and caches of little
// account to it. A slow device (a software one) then measures its
// costliest points in a sixteenth of the time.
const quickMinArrayBytes = 4 << 20

// quickIters keeps every other point of its, from the first, and the
// last: the same span of intensities (memory-bound to compute-bound) at
// half the points, the costliest of which are the compute-bound ones.
func quickIters(its []uint32) []uint32 {
	var out []uint32
	for i, it := range its {
		if i%2 == 0 || i == len(its)-1 {
			out = append(out, it)
		}
	}
	return out
}

// MeasureRoofline sweeps each selected precision over RooflineIters (in
// quick mode fewer of them, rooflineLimitsFor): at each intensity it warms up, times at least 3 samples and keeps their
// median, and checks every output element exactly against the closed form
// (roofline_ref.go). The arrays (two, each up to 1 GiB) are sized from the
// device's limits, its memory limit and o. A failed check returns an
// error wrapping ErrCheckFailed and no figures.
func MeasureRoofline(ctx context.Context, d *Device, o RooflineOptions) ([]RooflineResult, error) {
	if err := d.alive(); err != nil {
		return nil, err
	}
	rows, err := selectRooflineKernels(o.Precisions)
	if err != nil {
		return nil, err
	}
	if o.MaxArrayBytes > 0 && o.MaxArrayBytes < minArrayBytes {
		return nil, fmt.Errorf("gpu: roofline arrays capped at %d bytes, below the %d-byte minimum", o.MaxArrayBytes, minArrayBytes)
	}
	return measureRoofline(ctx, d, rows, rooflineLimitsFor(o, d), nil)
}

// rooflineLimitsFor are the probe's limits for o on d: newRooflineLimits
// for d's mode, and in quick mode on a software adapter, whose points cost
// the most of any device's (a few hundred milliseconds each, the host's
// cores running them and checking every element), quickIters of the quick
// points again: 1, 16, 256 and 1024 operations per element, still from
// memory-bound to compute-bound.
func rooflineLimitsFor(o RooflineOptions, d *Device) rooflineLimits {
	lim := newRooflineLimits(o, d.opts.Quick)
	if d.opts.Quick && d.info.Software {
		lim.Iters = quickIters(lim.Iters)
	}
	return lim
}

// selectRooflineKernels returns the rows named, in table order; none
// named means all.
func selectRooflineKernels(names []string) ([]RooflineKernel, error) {
	var rows []RooflineKernel
	for _, k := range RooflineKernels() {
		if len(names) == 0 || slices.Contains(names, k.Precision) {
			rows = append(rows, k)
		}
	}
	for _, n := range names {
		if !slices.ContainsFunc(rows, func(k RooflineKernel) bool { return k.Precision == n }) {
			return nil, fmt.Errorf("gpu: no roofline sweep for precision %q", n)
		}
	}
	return rows, nil
}

// measureRoofline is MeasureRoofline with explicit rows, limits and a
// test hook.
func measureRoofline(ctx context.Context, d *Device, rows []RooflineKernel, lim rooflineLimits, tamper tamperFunc) ([]RooflineResult, error) {
	n, err := rooflineElements(d.limits, d.memLimit, lim)
	if err != nil {
		return nil, err
	}
	r := &rooflineRun{d: d, lim: lim, tamper: tamper, maxPerDim: d.limits.MaxWorkgroupsPerDimension}
	defer r.release()
	if err := r.setup(ctx, n); err != nil {
		return nil, err
	}
	var results []RooflineResult
	for _, k := range rows {
		res, err := r.sweep(ctx, k)
		if err != nil {
			return nil, fmt.Errorf("roofline %s: %w", k.Precision, err)
		}
		results = append(results, res)
	}
	return results, nil
}

// rooflineElements sizes each array, in vec4 elements: as large as the
// limits' MaxArrayBytes, the device's buffer and binding limits and the
// memory limit allow (two arrays and a staging chunk must fit), in whole
// workgroup blocks. It fails below MinArrayBytes.
func rooflineElements(l Limits, memLimit uint64, lim rooflineLimits) (uint64, error) {
	bytes := min(lim.MaxArrayBytes, l.MaxStorageBindingBytes, l.MaxBufferBytes, rooflineMemBytes(memLimit))
	elems := bytes / ElementBytes / roofBlock * roofBlock
	if elems == 0 || elems*ElementBytes < lim.MinArrayBytes {
		return 0, fmt.Errorf("gpu: roofline arrays would be %d bytes, below the %d-byte minimum (memory limit %d, max storage binding %d, max buffer %d)",
			elems*ElementBytes, lim.MinArrayBytes, memLimit, l.MaxStorageBindingBytes, l.MaxBufferBytes)
	}
	return elems, nil
}

// rooflineMemBytes is the largest array size S for which two arrays and
// a staging buffer of min(S, stagingChunk) fit memLimit.
func rooflineMemBytes(memLimit uint64) uint64 {
	if memLimit >= 3*stagingChunk {
		return (memLimit - stagingChunk) / 2
	}
	return memLimit / 3
}

package gpu

import (
	"cmp"
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
	Precision   string // "fma.fp32" or "mad.int32"
	Entry, Fill string // sweep and input-fill entry points in wgsl/roofline.wgsl
	// Unroll is the counted operations per scalar of one trip of Entry's
	// loop. On a software adapter Short (one operation a trip) runs the
	// points below Unroll and One (no loop) the 1-operation point.
	Unroll          uint32
	Short           string
	One             string
	OpsPerOperation int // operations one counted operation on one scalar counts for
	BytesPerElement int // device-memory bytes read and written per scalar

	kind rooflineKind
}

// Intensity is the operations per byte of a point of iters counted
// operations per scalar.
func (k RooflineKernel) Intensity(iters uint32) float64 {
	return float64(k.OpsPerOperation) * float64(iters) / float64(k.BytesPerElement)
}

// RooflineKernels returns the table in the order the probe sweeps it.
// Operations are counted as the ALU table counts them, bytes as bytes read
// plus bytes written.
func RooflineKernels() []RooflineKernel {
	return []RooflineKernel{
		{Precision: "fma.fp32", Entry: "roofline_f32", Fill: "roofline_fill_f32", Unroll: 16, Short: "roofline_f32_short", One: "roofline_f32_one",
			OpsPerOperation: 2, BytesPerElement: 8, kind: roofF32},
		{Precision: "mad.int32", Entry: "roofline_i32", Fill: "roofline_fill_i32", Unroll: 8, Short: "roofline_i32_short", One: "roofline_i32_one",
			OpsPerOperation: 2, BytesPerElement: 8, kind: roofI32},
	}
}

// RooflineIters returns the counted operations per scalar of the sweep's
// points: 1 to 1024, doubling (0.25 to 256 operations per byte).
func RooflineIters() []uint32 {
	var its []uint32
	for it := uint32(1); it <= 1024; it *= 2 {
		its = append(its, it)
	}
	return its
}

// RooflineOptions says what MeasureRoofline sweeps.
type RooflineOptions struct {
	Precisions []string // rows of RooflineKernels; none means all
	// MaxArrayBytes caps each of the two arrays, in bytes; 0 means 1 GiB.
	// It may not be below 64 MiB.
	MaxArrayBytes uint64
}

// RooflinePoint is one intensity of a sweep.
type RooflinePoint struct {
	Iters     uint32  // counted operations per scalar
	Intensity float64 // operations per byte
	// OpsPerS is the median of the samples, MinOpsPerS and MaxOpsPerS
	// their extremes, in operations/s.
	OpsPerS, MinOpsPerS, MaxOpsPerS float64
	Samples                         int
	Elements                        uint64 // scalars one dispatch processes
}

// RooflineResult is one precision's sweep.
type RooflineResult struct {
	Precision string          // the row of RooflineKernels
	Points    []RooflinePoint // in increasing intensity
	Timing    schema.TimingMethod
	// ArrayBytes is the size of each of the two arrays; a point may use a
	// prefix of them (RooflinePoint.Elements).
	ArrayBytes uint64
	// Checked is the scalars compared exactly with the closed form, every
	// element of every point's last sample.
	Checked uint64
}

// Analyse holds the sweep against the roofline of its own roofs.
func (r RooflineResult) Analyse() (roofline.Analysis, error) {
	ps := make([]roofline.Point, len(r.Points))
	for i, p := range r.Points {
		ps[i] = roofline.Point{Intensity: p.Intensity, OpsPerS: p.OpsPerS}
	}
	return roofline.Analyse(ps)
}

type rooflineLimits struct {
	// cal bounds each point's samples; a compute-bound point whose
	// dispatch exceeds its MaxDispatchS runs over a prefix of the arrays.
	cal                          calibrationLimits
	MinArrayBytes, MaxArrayBytes uint64
	Iters                        []uint32
	// WarmUp precedes each precision's sweep, PointWarmUp each point.
	WarmUp, PointWarmUp time.Duration
	// Test hooks: hidden runs roofline_f32_hidden with hidden(iters)
	// uncounted FMA quads per scalar; noShort runs Entry at every point.
	hidden  func(iters uint32) uint32
	noShort bool
}

const (
	roofBlock       = 1024 // vec4 elements per workgroup
	roofPointWarmUp = 100 * time.Millisecond
)

func newRooflineLimits(o RooflineOptions, e Effort) rooflineLimits {
	l := rooflineLimits{
		cal: e.Roofline.apply(calibrationLimits{
			MinSampleS: 5e-3, LaunchFactor: 20, MaxDispatchS: 0.1,
			MinElements: 1, ElementStep: roofBlock, // point() sets MinElements from MinArrayBytes
			MaxIterations: 4096, BudgetS: 0.15, MinSamples: 3, MaxSamples: 10,
		}),
		MinArrayBytes: cmp.Or(e.RooflineMinArrayBytes, minArrayBytes), MaxArrayBytes: cmp.Or(o.MaxArrayBytes, maxArrayBytes),
		Iters: RooflineIters(), WarmUp: warmUp, PointWarmUp: roofPointWarmUp,
	}
	for range e.RooflineThin {
		l.Iters = thinIters(l.Iters)
	}
	return l
}

// thinIters keeps every other point of its, from the first, and the last.
func thinIters(its []uint32) []uint32 {
	var out []uint32
	for i, it := range its {
		if i%2 == 0 || i == len(its)-1 {
			out = append(out, it)
		}
	}
	return out
}

// MeasureRoofline sweeps each selected precision over RooflineIters (fewer
// with Effort.RooflineThin), checking every output element exactly against
// the closed form. A failed check returns an error wrapping ErrCheckFailed.
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
	return measureRoofline(ctx, d, rows, newRooflineLimits(o, d.opts.Effort), nil)
}

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

// rooflineElements sizes each array, in vec4 elements, within the limits,
// in whole workgroup blocks. It fails below MinArrayBytes.
func rooflineElements(l Limits, memLimit uint64, lim rooflineLimits) (uint64, error) {
	bytes := min(lim.MaxArrayBytes, l.MaxStorageBindingBytes, l.MaxBufferBytes, rooflineMemBytes(memLimit))
	elems := bytes / ElementBytes / roofBlock * roofBlock
	if elems == 0 || elems*ElementBytes < lim.MinArrayBytes {
		return 0, fmt.Errorf("gpu: roofline arrays would be %d bytes, below the %d-byte minimum (memory limit %d, max storage binding %d, max buffer %d)",
			elems*ElementBytes, lim.MinArrayBytes, memLimit, l.MaxStorageBindingBytes, l.MaxBufferBytes)
	}
	return elems, nil
}

// rooflineMemBytes is the largest S for which two arrays of S and a staging
// buffer of min(S, stagingChunk) fit memLimit.
func rooflineMemBytes(memLimit uint64) uint64 {
	if memLimit >= 3*stagingChunk {
		return (memLimit - stagingChunk) / 2
	}
	return memLimit / 3
}

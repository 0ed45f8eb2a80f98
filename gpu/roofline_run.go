package gpu

import (
	"context"
	"fmt"
	"time"

	"github.com/cogentcore/webgpu/wgpu"

	"github.com/everycycle/appraise/internal/measure/refcheck"
	"github.com/everycycle/appraise/internal/measure/stats"
)

// rooflineRun holds one run of the roofline probe: the compiled kernels,
// the input array src and the output array dst (n vec4 elements each), a
// Params uniform and bind groups for the fill and the sweep kernels.
// src stays fixed while a precision is swept and every dispatch rewrites
// the elements in use of dst from it, so the last sample's output is the
// one checked.
type rooflineRun struct {
	d      *Device
	lim    rooflineLimits
	tamper tamperFunc

	ks        *kernelSet
	src, dst  *wgpu.Buffer
	params    *wgpu.Buffer
	fill      map[string]*wgpu.BindGroup // by entry point
	sweepBG   map[string]*wgpu.BindGroup // by entry point
	n         uint64                     // vec4 elements in each array
	launchS   float64
	maxPerDim uint32 // workgroups per grid dimension; tests lower it
}

// release frees everything the run created. Safe on a partial run.
func (r *rooflineRun) release() {
	for _, m := range []map[string]*wgpu.BindGroup{r.fill, r.sweepBG} {
		for _, bg := range m {
			bg.Release()
		}
	}
	r.fill, r.sweepBG = nil, nil
	for _, b := range []**wgpu.Buffer{&r.src, &r.dst, &r.params} {
		if *b != nil {
			(*b).Release()
			*b = nil
		}
	}
	if r.ks != nil {
		r.ks.release()
		r.ks = nil
	}
}

// entries are the entry points the run compiles: every row's sweep and
// fill kernel, and the degraded variant when the test hook asks for it.
func (r *rooflineRun) entries() []string {
	var es []string
	for _, k := range RooflineKernels() {
		es = append(es, k.Entry, k.Short, k.One, k.Fill)
	}
	if r.lim.hidden != nil {
		es = append(es, "roofline_f32_hidden")
	}
	return es
}

// setup compiles the kernels, creates the arrays of n vec4 elements and
// the bind groups, and measures the launch overhead.
func (r *rooflineRun) setup(ctx context.Context, n uint64) error {
	for _, it := range r.lim.Iters {
		if it == 0 || it > roofMaxIters {
			return fmt.Errorf("gpu: roofline point of %d operations per element (1 to %d)", it, roofMaxIters)
		}
	}
	var err error
	r.n = n
	if r.ks, err = r.d.compile("roofline", r.entries()...); err != nil {
		return err
	}
	if r.src, err = r.d.storageBuffer("roofline-src", n*ElementBytes); err != nil {
		return err
	}
	if r.dst, err = r.d.storageBuffer("roofline-dst", n*ElementBytes); err != nil {
		return err
	}
	if r.params, err = r.d.uniformBuffer("roofline-params", rooflineParams(0, 0, 0)); err != nil {
		return err
	}
	if err := r.bindAll(); err != nil {
		return err
	}
	r.launchS, err = r.d.emptyRoundTripS(ctx, 20)
	return err
}

// bindAll creates the bind group of every entry point: fills write src,
// sweeps read src and write dst.
func (r *rooflineRun) bindAll() error {
	r.fill, r.sweepBG = map[string]*wgpu.BindGroup{}, map[string]*wgpu.BindGroup{}
	for _, e := range r.entries() {
		k := r.ks.kernels[e]
		var bg *wgpu.BindGroup
		var err error
		if isRooflineFill(e) {
			bg, err = r.d.bindGroup(k, binding{0, r.params}, binding{2, r.src})
			if err == nil {
				r.fill[e] = bg
			}
		} else {
			bg, err = r.d.bindGroup(k, binding{0, r.params}, binding{1, r.src}, binding{2, r.dst})
			if err == nil {
				r.sweepBG[e] = bg
			}
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// isRooflineFill reports whether entry is one of the fill kernels.
func isRooflineFill(entry string) bool {
	for _, k := range RooflineKernels() {
		if k.Fill == entry {
			return true
		}
	}
	return false
}

// roofDispatch is the sweep dispatch of one point: over m vec4 elements,
// iters counted and hidden uncounted operations per scalar.
type roofDispatch struct {
	dispatch
	row    RooflineKernel
	m      uint64
	iters  uint32
	hidden uint32
}

// opsPerDispatch is the operations one dispatch counts by the table.
func (a *roofDispatch) opsPerDispatch() float64 {
	return float64(a.m*4) * float64(a.iters) * float64(a.row.OpsPerOperation)
}

// set points the dispatch at m elements (a multiple of roofBlock) and
// uploads its uniform.
func (r *rooflineRun) set(a *roofDispatch, m uint64) error {
	groups := uint32(m / roofBlock)
	x, y, err := grid(groups, r.maxPerDim)
	if err != nil {
		return err
	}
	a.x, a.y, a.m = x, y, m
	return r.d.upload(r.params, 0, rooflineParams(groups, a.iters, a.hidden))
}

// newDispatch is the dispatch of row k's point at iters over m elements.
func (r *rooflineRun) newDispatch(k RooflineKernel, iters uint32, m uint64) (*roofDispatch, error) {
	entry := r.entry(k, iters)
	a := &roofDispatch{row: k, iters: iters}
	if r.lim.hidden != nil && k.kind == roofF32 {
		entry, a.hidden = "roofline_f32_hidden", r.lim.hidden(iters)
	}
	a.dispatch = dispatch{k: r.ks.kernels[entry], bg: r.sweepBG[entry]}
	return a, r.set(a, m)
}

// entry is the sweep kernel of row k's point at iters: on a software
// adapter, k.One for the 1-op point and k.Short for the other points of
// fewer operations than k.Unroll; k.Entry otherwise. There every loop body
// runs, masked off, even with no trip to make, and the 1-op point, whose
// bytes/s set the memory roof, must time its loads and stores alone
// (docs/measuring.md, "The roofline").
func (r *rooflineRun) entry(k RooflineKernel, iters uint32) string {
	switch {
	case !r.d.info.Software || r.lim.noShort:
		return k.Entry
	case iters == 1:
		return k.One
	case iters < k.Unroll:
		return k.Short
	}
	return k.Entry
}

// fillSrc writes row k's input pattern over all of src.
func (r *rooflineRun) fillSrc(k RooflineKernel) error {
	groups := uint32(r.n / roofBlock)
	x, y, err := grid(groups, r.maxPerDim)
	if err != nil {
		return err
	}
	if err := r.d.upload(r.params, 0, rooflineParams(groups, 0, 0)); err != nil {
		return err
	}
	ds := dispatch{k: r.ks.kernels[k.Fill], bg: r.fill[k.Fill], x: x, y: y}
	return r.d.run(func(enc *wgpu.CommandEncoder) error { return record(enc, []dispatch{ds}, 1) })
}

// sweep fills the input, warms up at the middle point, then measures and
// checks each point in increasing intensity. Each point starts with the
// elements the previous one used; one whose compute dominates it
// (pointSizes) runs over a prefix of them, halved (not below
// MinArrayBytes) while a dispatch would exceed MaxDispatchS. The first
// point, the most memory-bound, runs over the whole arrays, and its time
// says what memory costs.
func (r *rooflineRun) sweep(ctx context.Context, k RooflineKernel) (RooflineResult, error) {
	res := RooflineResult{Precision: k.Precision, Timing: r.d.timing, ArrayBytes: r.n * ElementBytes}
	if err := r.fillSrc(k); err != nil {
		return RooflineResult{}, err
	}
	mid, err := r.newDispatch(k, r.lim.Iters[len(r.lim.Iters)/2], r.n)
	if err != nil {
		return RooflineResult{}, err
	}
	r.d.progress("roofline: %s warm-up over %d MiB arrays", k.Precision, r.n*ElementBytes>>20)
	if _, err := r.d.warmUp(ctx, mid.dispatch, r.lim.WarmUp, r.lim.cal.MaxIterations); err != nil {
		return RooflineResult{}, err
	}
	var sizes pointSizes
	m := r.n
	for _, it := range r.lim.Iters {
		r.d.progress("roofline: %s at %g ops/byte", k.Precision, k.Intensity(it))
		shrink := sizes.computeBound(it)
		if shrink {
			m = sizes.start(it, m, r.n, r.lim.shrinkLimits())
		}
		p, checked, err := r.point(ctx, k, it, &m, shrink)
		if err != nil {
			return RooflineResult{}, fmt.Errorf("%d operations per element: %w", it, err)
		}
		// One dispatch of the point over the whole arrays, at its fastest
		// sample's rate: load from outside only ever slows a sample.
		sizes.measured(it, float64(r.n*4)*float64(it)*float64(k.OpsPerOperation)/p.MaxOpsPerS)
		res.Points = append(res.Points, p)
		res.Checked += checked
	}
	return res, nil
}

// roofComputeBound is how many times the first point's dispatch time
// over the whole arrays a point's compute alone must take before the
// point may run over a prefix of them: compute then takes most of its
// time, and a cache the prefix fits in changes little of it. The
// memory-bound points, whose rates set the memory roof, run over the
// whole arrays however long a dispatch takes (on a loaded host a software
// adapter's dispatches can take many times their usual time).
const roofComputeBound = 4

// pointSizes is what a sweep has learnt of its dispatch times over the
// whole arrays, from each point's fastest sample (a single dispatch, as
// a warm-up times, can be slowed many times by a loaded host): memS, the
// first point's (what memory costs), and computeS, the time per counted
// operation per element beyond it, from the latest point (0 until two
// points are measured).
type pointSizes struct {
	memS, computeS float64
}

// measured records a point of it operations per element whose dispatch
// over the whole arrays takes fullS.
func (s *pointSizes) measured(it uint32, fullS float64) {
	if s.memS == 0 {
		s.memS = fullS
		return
	}
	s.computeS = max(0, fullS-s.memS) / float64(it)
}

// computeBound reports whether the point of it operations per element
// may run over a prefix of the arrays: its compute alone, at the latest
// point's rate (which any overlap with memory only adds to), takes more
// than roofComputeBound times memS.
func (s pointSizes) computeBound(it uint32) bool {
	return s.memS > 0 && s.computeS*float64(it) > roofComputeBound*s.memS
}

// start is the elements a compute-bound point starts from, before its
// warm-up: m, where the point before left off, halved while its compute
// at the latest point's rate would exceed MaxDispatchS (shrinkElements),
// so that its warm-up runs over the elements it keeps, not twice as many
// or more.
func (s pointSizes) start(it uint32, m, n uint64, lim calibrationLimits) uint64 {
	m, _ = shrinkElements(s.computeS*float64(it)*float64(m)/float64(n), m, lim)
	return m
}

// shrinkLimits are the calibration limits by which a point shrinks the
// elements it runs over: halving while a dispatch exceeds MaxDispatchS, in
// whole workgroup blocks, never below MinArrayBytes.
func (l rooflineLimits) shrinkLimits() calibrationLimits {
	s := l.cal
	s.MinElements = max(l.MinArrayBytes/ElementBytes, roofBlock)
	return s
}

// point measures one intensity over the first *m elements, shrinking *m,
// when shrink allows (a compute-bound point), while a dispatch would be
// too long, and checks its output.
func (r *rooflineRun) point(ctx context.Context, k RooflineKernel, iters uint32, m *uint64, shrink bool) (RooflinePoint, uint64, error) {
	a, err := r.newDispatch(k, iters, *m)
	if err != nil {
		return RooflinePoint{}, 0, err
	}
	per, err := r.d.warmUp(ctx, a.dispatch, r.pointWarmUp(), r.lim.cal.MaxIterations)
	if err != nil {
		return RooflinePoint{}, 0, err
	}
	if n, t := shrinkElements(per, *m, r.lim.shrinkLimits()); shrink && n != *m {
		*m, per = n, t
		if err := r.set(a, n); err != nil {
			return RooflinePoint{}, 0, err
		}
		if per, err = r.d.warmUp(ctx, a.dispatch, 0, r.lim.cal.MaxIterations); err != nil {
			return RooflinePoint{}, 0, err
		}
	}
	cal, err := plan(per, r.launchS, r.lim.cal)
	if err != nil {
		return RooflinePoint{}, 0, err
	}
	p, err := r.sample(ctx, a, cal)
	if err != nil {
		return RooflinePoint{}, 0, err
	}
	checked, err := r.check(a)
	return p, checked, err
}

// pointWarmUp is the load before a point's samples: PointWarmUp on a
// GPU, whose clocks can drop while the host checks the point before; on
// a software adapter, which has no clocks of its own and has just run
// the point before, none: one dispatch, whose time plans the samples.
func (r *rooflineRun) pointWarmUp() time.Duration {
	if r.d.info.Software {
		return 0
	}
	return r.lim.PointWarmUp
}

// sample times cal.Samples submissions of cal.Iterations dispatches and
// summarises them in operations/s. dst is cleared (untimed) before the
// last sample, so the output checked afterwards is that sample's.
func (r *rooflineRun) sample(ctx context.Context, a *roofDispatch, cal calibration) (RooflinePoint, error) {
	ops := a.opsPerDispatch() * float64(cal.Iterations)
	rates := make([]float64, 0, cal.Samples)
	for i := 0; i < cal.Samples; i++ {
		if err := ctx.Err(); err != nil {
			return RooflinePoint{}, err
		}
		if i == cal.Samples-1 {
			if err := r.clearDst(a.m); err != nil {
				return RooflinePoint{}, err
			}
		}
		t, err := r.d.timeWork(work(a.dispatch, cal.Iterations))
		if err != nil {
			return RooflinePoint{}, err
		}
		rates = append(rates, ops/t)
	}
	s, err := stats.Summarize(rates)
	if err != nil {
		return RooflinePoint{}, err
	}
	return RooflinePoint{
		Iters: a.iters, Intensity: a.row.Intensity(a.iters),
		OpsPerS: s.Median, MinOpsPerS: s.Min, MaxOpsPerS: s.Max, Samples: s.Samples,
		Elements: a.m * 4, DispatchesPerSample: cal.Iterations,
	}, nil
}

// clearDst zeroes the first m vec4 elements of dst.
func (r *rooflineRun) clearDst(m uint64) error {
	return r.d.run(func(enc *wgpu.CommandEncoder) error {
		if err := enc.ClearBuffer(r.dst, 0, m*ElementBytes); err != nil {
			return fmt.Errorf("webgpu: ClearBuffer: %w", err)
		}
		return nil
	})
}

// check reads the dispatch's output back and compares every scalar
// exactly with the closed form. It returns the scalars compared.
func (r *rooflineRun) check(a *roofDispatch) (uint64, error) {
	total := refcheck.New()
	err := r.d.readBack(r.dst, a.m*ElementBytes, func(off uint64, chunk []byte) error {
		total.Merge(checkRoofline(a.row.kind, a.iters, r.view(a.row.Precision, off, chunk), off/4))
		return nil
	})
	if err != nil {
		return 0, err
	}
	return total.Checked, rooflineErr(a.row.kind, total)
}

// view applies the test hook, if any, to a read-back chunk.
func (r *rooflineRun) view(precision string, off uint64, chunk []byte) []byte {
	if r.tamper == nil {
		return chunk
	}
	return r.tamper(precision, off, append([]byte(nil), chunk...))
}

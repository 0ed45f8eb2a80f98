package gpu

import (
	"cmp"
	"context"
	"fmt"
	"math"

	"github.com/cogentcore/webgpu/wgpu"

	"github.com/everycycle/appraise/internal/measure/refcheck"
	"github.com/everycycle/appraise/internal/measure/stats"
	"github.com/everycycle/appraise/schema"
)

// bandwidthRun is one run of the bandwidth probe. Each kernel rewrites its
// whole output from inputs fixed while it is timed, so the last sample's
// output is the one checked. triad reads c as copy leaves it: copy runs
// once before it.
type bandwidthRun struct {
	d      *Device
	lim    calibrationLimits
	tamper tamperFunc

	ks      *kernelSet
	buffers []*wgpu.Buffer
	bgs     []*wgpu.BindGroup
	a, b, c *wgpu.Buffer
	partial *wgpu.Buffer
	disp    map[string]*bwDispatch // by kernel name, plus init-a/b/c

	n         uint64 // elements in use in each array
	launchS   float64
	maxPerDim uint32 // workgroups per grid dimension; tests lower it
}

type bwDispatch struct {
	dispatch
	params        *wgpu.Buffer
	seed          uint32
	perInvocation uint64
	groups        uint32
}

func (r *bandwidthRun) release() {
	for _, bg := range r.bgs {
		bg.Release()
	}
	for _, b := range r.buffers {
		b.Release()
	}
	if r.ks != nil {
		r.ks.release()
	}
}

func (r *bandwidthRun) keep(b *wgpu.Buffer, err error) (*wgpu.Buffer, error) {
	if err == nil {
		r.buffers = append(r.buffers, b)
	}
	return b, err
}

func (r *bandwidthRun) setup(elems uint64) error {
	var err error
	if r.ks, err = r.d.compile("bandwidth", probeKernels()["bandwidth"]...); err != nil {
		return err
	}
	for _, p := range []**wgpu.Buffer{&r.a, &r.b, &r.c} {
		if *p, err = r.keep(r.d.storageBuffer("array", elems*ElementBytes)); err != nil {
			return err
		}
	}
	maxGroups := uint64(groupsFor(elems, 1))
	if r.partial, err = r.keep(r.d.storageBuffer("partial", maxGroups*ElementBytes)); err != nil {
		return err
	}
	if err := r.bindAll(); err != nil {
		return err
	}
	return r.resize(elems)
}

type bwSpec struct {
	name, entry   string
	seed          uint32
	perInvocation int
	bind          []binding // without the Params uniform at slot 0
}

// specs lists the array fills, then one dispatch per kernel.
func (r *bandwidthRun) specs() []bwSpec {
	bind := map[string][]binding{
		"read":  {{1, r.a}, {3, r.partial}},
		"write": {{3, r.c}},
		"copy":  {{1, r.a}, {3, r.c}},
		"triad": {{1, r.b}, {2, r.c}, {3, r.a}},
	}
	var ss, fills []bwSpec
	for _, k := range BandwidthKernels() {
		seed := uint32(0)
		if k.Name == "write" {
			seed = seedWrite
			fills = []bwSpec{
				{"init-a", k.Entry, seedA, k.PerInvocation, []binding{{3, r.a}}},
				{"init-b", k.Entry, seedB, k.PerInvocation, []binding{{3, r.b}}},
				{"init-c", k.Entry, seedC, k.PerInvocation, []binding{{3, r.c}}},
			}
		}
		ss = append(ss, bwSpec{k.Name, k.Entry, seed, k.PerInvocation, bind[k.Name]})
	}
	return append(fills, ss...)
}

func (r *bandwidthRun) bindAll() error {
	r.disp = map[string]*bwDispatch{}
	for _, s := range r.specs() {
		params, err := r.keep(r.d.uniformBuffer("params", bandwidthParams(0, 0, s.seed)))
		if err != nil {
			return err
		}
		k := r.ks.kernels[s.entry]
		bg, err := r.d.bindGroup(k, append([]binding{{0, params}}, s.bind...)...)
		if err != nil {
			return err
		}
		r.bgs = append(r.bgs, bg)
		r.disp[s.name] = &bwDispatch{dispatch: dispatch{k: k, bg: bg}, params: params,
			seed: s.seed, perInvocation: uint64(s.perInvocation)}
	}
	return nil
}

func (r *bandwidthRun) resize(n uint64) error {
	r.n = n
	for _, ds := range r.disp {
		if err := r.shape(ds); err != nil {
			return err
		}
	}
	return nil
}

func (r *bandwidthRun) shape(ds *bwDispatch) error {
	ds.groups = groupsFor(r.n, ds.perInvocation)
	x, y, err := grid(ds.groups, r.maxPerDim)
	if err != nil {
		return err
	}
	ds.x, ds.y = x, y
	return r.d.upload(ds.params, 0, bandwidthParams(r.n, ds.groups, ds.seed))
}

func (r *bandwidthRun) setPer(ds *bwDispatch, per uint64) error {
	ds.perInvocation = per
	return r.shape(ds)
}

func work(ds dispatch, reps int) func(*wgpu.CommandEncoder) error {
	return func(enc *wgpu.CommandEncoder) error { return record(enc, []dispatch{ds}, reps) }
}

// prepare shrinks the arrays while a copy would exceed MaxDispatchS.
func (r *bandwidthRun) prepare(ctx context.Context) error {
	var err error
	if r.launchS, err = r.d.emptyRoundTripS(ctx, 20); err != nil {
		return err
	}
	if err := r.fill(); err != nil {
		return err
	}
	trial := math.Inf(1)
	for i := 0; i < 2; i++ { // the faster of two: the first may pay page faults
		t, err := r.d.timeWork(work(r.disp["copy"].dispatch, 1))
		if err != nil {
			return err
		}
		trial = min(trial, t)
	}
	if n, _ := shrinkElements(trial, r.n, r.lim); n != r.n {
		r.d.progress("bandwidth: one copy took %.3g s; shrinking arrays to %d MiB", trial, n*ElementBytes>>20)
		return r.resize(n)
	}
	return nil
}

func (r *bandwidthRun) fill() error {
	inits := []dispatch{r.disp["init-a"].dispatch, r.disp["init-b"].dispatch, r.disp["init-c"].dispatch}
	return r.d.run(func(enc *wgpu.CommandEncoder) error { return record(enc, inits, 1) })
}

func (r *bandwidthRun) measure(ctx context.Context, k BandwidthKernel) (BandwidthResult, error) {
	bd := r.disp[k.Name]
	if k.Name == "triad" {
		if err := r.d.run(work(r.disp["copy"].dispatch, 1)); err != nil {
			return BandwidthResult{}, err
		}
	}
	one, err := r.d.warmUp(ctx, bd.dispatch, warmUp, r.lim.MaxIterations)
	if err != nil {
		return BandwidthResult{}, err
	}
	if len(k.PerInvocationCandidates) > 1 {
		if one, err = r.choosePer(ctx, bd, k.PerInvocationCandidates, one); err != nil {
			return BandwidthResult{}, err
		}
	}
	cal, err := plan(one, r.launchS, r.lim)
	if err != nil {
		return BandwidthResult{}, err
	}
	bytes := r.n * k.BytesPerElement()
	stat, err := r.sample(ctx, bd.dispatch, cal, bytes)
	if err != nil {
		return BandwidthResult{}, err
	}
	res := BandwidthResult{
		Kernel: k.Name, ArrayBytes: r.n * ElementBytes, BytesPerDispatch: bytes,
		PerInvocation: int(bd.perInvocation), Iterations: cal.Iterations, BytesPerS: stat, Timing: r.d.timing,
	}
	if err := r.check(k.Name, &res); err != nil {
		return BandwidthResult{}, err
	}
	return res, nil
}

// perTrialRounds is the elements-per-invocation trial's default rounds, candidates in turn.
const perTrialRounds = 3

// choosePer keeps the candidate of lowest median time per dispatch.
func (r *bandwidthRun) choosePer(ctx context.Context, ds *bwDispatch, cands []int, one float64) (float64, error) {
	cal, err := plan(one, r.launchS, r.lim)
	if err != nil {
		return 0, err
	}
	times := make([][]float64, len(cands))
	for range cmp.Or(r.d.opts.Effort.BandwidthTrialRounds, perTrialRounds) {
		for i, c := range cands {
			if err := ctx.Err(); err != nil {
				return 0, err
			}
			if err := r.setPer(ds, uint64(c)); err != nil {
				return 0, err
			}
			t, err := r.d.timeWork(work(ds.dispatch, cal.Iterations))
			if err != nil {
				return 0, err
			}
			times[i] = append(times[i], t/float64(cal.Iterations))
		}
	}
	best := 0
	for i := range times {
		if stats.Median(times[i]) < stats.Median(times[best]) {
			best = i
		}
	}
	return stats.Median(times[best]), r.setPer(ds, uint64(cands[best]))
}

func (r *bandwidthRun) sample(ctx context.Context, ds dispatch, cal calibration, bytes uint64) (schema.Stat, error) {
	rates := make([]float64, 0, cal.Samples)
	for i := 0; i < cal.Samples; i++ {
		if err := ctx.Err(); err != nil {
			return schema.Stat{}, err
		}
		t, err := r.d.timeWork(work(ds, cal.Iterations))
		if err != nil {
			return schema.Stat{}, err
		}
		rates = append(rates, float64(bytes)*float64(cal.Iterations)/t)
	}
	return stats.Summarize(rates)
}

func (r *bandwidthRun) check(kernel string, res *BandwidthResult) error {
	var cr refcheck.Result
	var err error
	switch kernel {
	case "read":
		threads := uint64(r.disp["read"].groups) * wgSize
		res.Tolerance = readTolerance((r.n + threads - 1) / threads)
		cr, err = r.checkRead(res.Tolerance)
	case "write":
		cr, err = r.checkBuffer(kernel, r.c, wantFill(seedWrite), 0)
	case "copy":
		cr, err = r.checkBuffer(kernel, r.c, wantFill(seedA), 0)
	case "triad":
		res.Tolerance = triadTolerance
		cr, err = r.checkBuffer(kernel, r.a, wantTriad, triadTolerance)
	default:
		return fmt.Errorf("gpu: no reference for bandwidth kernel %q", kernel)
	}
	if err != nil {
		return err
	}
	res.Checked, res.MaxRelError = cr.Checked, cr.MaxRel
	return cr.Err(ErrCheckFailed, kernel, res.Tolerance)
}

func (r *bandwidthRun) view(kernel string, off uint64, chunk []byte) []byte {
	if r.tamper == nil {
		return chunk
	}
	return r.tamper(kernel, off, append([]byte(nil), chunk...))
}

func (r *bandwidthRun) checkBuffer(kernel string, buf *wgpu.Buffer, want wantFunc, tol float64) (refcheck.Result, error) {
	total := refcheck.New()
	err := r.d.readBack(buf, r.n*ElementBytes, func(off uint64, chunk []byte) error {
		total.Merge(checkArray(r.view(kernel, off, chunk), off/4, want, tol))
		return nil
	})
	return total, err
}

func (r *bandwidthRun) checkRead(tol float64) (refcheck.Result, error) {
	groups := r.disp["read"].groups
	raw := make([]byte, 0, uint64(groups)*ElementBytes)
	err := r.d.readBack(r.partial, uint64(groups)*ElementBytes, func(off uint64, chunk []byte) error {
		raw = append(raw, r.view("read", off, chunk)...)
		return nil
	})
	if err != nil {
		return refcheck.Result{}, err
	}
	return checkPartials(raw, readReference(r.n, groups, seedA), tol), nil
}

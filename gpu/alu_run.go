package gpu

import (
	"context"
	"fmt"
	"math"

	"github.com/cogentcore/webgpu/wgpu"

	"github.com/everycycle/appraise/internal/measure/refcheck"
	"github.com/everycycle/appraise/internal/measure/stats"
	"github.com/everycycle/appraise/schema"
)

// aluRun is one run of the ALU probe; kernels write a u32 per invocation.
type aluRun struct {
	d      *Device
	lim    aluLimits
	tamper tamperFunc

	out       *wgpu.Buffer
	maxGroups uint32 // workgroups the output buffer holds
	maxPerDim uint32 // workgroups per grid dimension; tests lower it
	launchS   float64
	sets      map[string]*kernelSet // by row of ALUKernels
}

// newALURun leaves nothing behind on error.
func newALURun(ctx context.Context, d *Device, lim aluLimits, tamper tamperFunc) (*aluRun, error) {
	if err := d.alive(); err != nil {
		return nil, err
	}
	r := &aluRun{d: d, lim: lim, tamper: tamper, maxPerDim: d.limits.MaxWorkgroupsPerDimension,
		sets: map[string]*kernelSet{}}
	if err := r.setup(ctx); err != nil {
		r.release()
		return nil, err
	}
	return r, nil
}

func (r *aluRun) setup(ctx context.Context) error {
	var err error
	if r.maxGroups, err = aluGroupCap(r.d.limits, r.d.memLimit, r.lim); err != nil {
		return err
	}
	if r.out, err = r.d.storageBuffer("alu-out", uint64(r.maxGroups)*aluWG*4); err != nil {
		return err
	}
	r.launchS, err = r.d.emptyRoundTripS(ctx, 20)
	return err
}

// aluGroupCap is lim.MaxGroups, or fewer where the output and its staging
// copy would not fit the device's limits or half the memory limit.
func aluGroupCap(l Limits, memLimit uint64, lim aluLimits) (uint32, error) {
	const perGroup = aluWG * 4
	groups := min(uint64(lim.MaxGroups), l.MaxStorageBindingBytes/perGroup, l.MaxBufferBytes/perGroup, memLimit/2/perGroup)
	if groups < uint64(lim.MinGroups) || groups == 0 {
		return 0, fmt.Errorf("gpu: the ALU output of %d workgroups does not fit (memory limit %d, max storage binding %d, max buffer %d)",
			lim.MinGroups, memLimit, l.MaxStorageBindingBytes, l.MaxBufferBytes)
	}
	return uint32(groups), nil
}

// release is safe on a partial run.
func (r *aluRun) release() {
	for _, s := range r.sets {
		s.release()
	}
	r.sets = nil
	if r.out != nil {
		r.out.Release()
		r.out = nil
	}
}

// kernel compiles k's entry point on first use.
func (r *aluRun) kernel(k ALUKernel) (*kernel, error) {
	s := r.sets[k.Name]
	if s == nil {
		var err error
		if s, err = r.d.compile(k.File, k.Entry); err != nil {
			return nil, err
		}
		r.sets[k.Name] = s
	}
	return s.kernels[k.Entry], nil
}

type aluDispatch struct {
	dispatch
	row           ALUKernel
	params        *wgpu.Buffer
	groups, iters uint32
}

func (a *aluDispatch) release() {
	if a.bg != nil {
		a.bg.Release()
	}
	if a.params != nil {
		a.params.Release()
	}
}

func (r *aluRun) bind(k ALUKernel) (*aluDispatch, error) {
	kern, err := r.kernel(k)
	if err != nil {
		return nil, err
	}
	a := &aluDispatch{row: k}
	if a.params, err = r.d.uniformBuffer("alu-params", aluParams(k.kind, 0, 0)); err != nil {
		return nil, err
	}
	a.dispatch.k = kern
	if a.bg, err = r.d.bindGroup(kern, binding{0, a.params}, binding{1, r.out}); err != nil {
		a.release()
		return nil, err
	}
	return a, nil
}

func (r *aluRun) set(a *aluDispatch, groups, iters uint32) error {
	x, y, err := grid(groups, r.maxPerDim)
	if err != nil {
		return err
	}
	a.x, a.y, a.groups, a.iters = x, y, groups, iters
	return r.d.upload(a.params, 0, aluParams(a.row.kind, iters, groups))
}

func (a *aluDispatch) invocations() uint64 { return uint64(a.groups) * aluWG }

func (a *aluDispatch) opsPerDispatch() uint64 {
	return a.invocations() * uint64(a.row.Chains) * uint64(a.iters) * uint64(a.row.PerTrip) * a.row.OpsPerOperation()
}

func (r *aluRun) measure(ctx context.Context, k ALUKernel) (ALUResult, error) {
	a, err := r.bind(k)
	if err != nil {
		return ALUResult{}, err
	}
	defer a.release()
	if err := r.size(ctx, a); err != nil {
		return ALUResult{}, err
	}
	per, err := r.d.warmUp(ctx, a.dispatch, r.lim.WarmUp, r.lim.cal.MaxIterations)
	if err != nil {
		return ALUResult{}, err
	}
	dispatchS, err := r.retune(a, per)
	if err != nil {
		return ALUResult{}, err
	}
	cal, err := plan(dispatchS, r.launchS, r.lim.cal)
	if err != nil {
		return ALUResult{}, err
	}
	stat, err := r.sample(ctx, a, cal)
	if err != nil {
		return ALUResult{}, err
	}
	res := ALUResult{
		Kernel: k.Name, Operation: k.Operation, InputType: k.InputType, AccumulatorType: k.AccumulatorType,
		OpCounting: k.OpCounting(), OpsPerS: stat, Timing: r.d.timing,
		Invocations: a.invocations(), ChainsPerInvocation: uint64(k.Chains),
		Iterations:          uint64(a.iters) * uint64(k.PerTrip),
		DispatchesPerSample: cal.Iterations, ErrorKind: "exact",
	}
	if err := r.check(a, &res); err != nil {
		return ALUResult{}, err
	}
	return res, nil
}

// size grows the grid (growGroups), then sets the loop trips (itersFor).
func (r *aluRun) size(ctx context.Context, a *aluDispatch) error {
	groups := min(r.lim.MinGroups, r.maxGroups)
	iters := min(r.lim.MinIters, a.row.kind.maxIters())
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := r.set(a, groups, iters); err != nil {
			return err
		}
		t, err := r.trial(a)
		if err != nil {
			return err
		}
		next := growGroups(groups, t, r.maxGroups, r.lim.cal.MaxDispatchS)
		if next == groups {
			return r.set(a, groups, itersFor(t/float64(iters), r.launchS, r.lim, a.row.kind.maxIters()))
		}
		groups = next
	}
}

// trial is the faster of two timed dispatches.
func (r *aluRun) trial(a *aluDispatch) (float64, error) {
	best := math.Inf(1)
	for i := 0; i < 2; i++ {
		t, err := r.d.timeWork(work(a.dispatch, 1))
		if err != nil {
			return 0, err
		}
		best = min(best, t)
	}
	return best, nil
}

// growGroups is groups once t reaches maxDispatchS/4 or groups maxGroups,
// else groups times the power of two (2 to 64) that brings t nearest
// maxDispatchS/2 without passing it.
func growGroups(groups uint32, t float64, maxGroups uint32, maxDispatchS float64) uint32 {
	if groups >= maxGroups || !(t < maxDispatchS/4) {
		return groups
	}
	f := uint64(2)
	for f < 64 && t*float64(2*f) <= maxDispatchS/2 {
		f *= 2
	}
	return uint32(min(uint64(maxGroups), uint64(groups)*f))
}

// itersFor is the loop trips, within [MinIters, maxIters], that make a
// dispatch last max(MinDispatchS, LaunchFactor*launchS).
func itersFor(perIterS, launchS float64, lim aluLimits, maxIters uint32) uint32 {
	lo := min(lim.MinIters, maxIters)
	if !positiveFinite(perIterS) {
		return lo
	}
	target := max(lim.MinDispatchS, lim.LaunchFactor*launchS)
	it := math.Ceil(target/perIterS - 1e-9)
	switch {
	case it >= float64(maxIters):
		return maxIters
	case it <= float64(lo):
		return lo
	default:
		return uint32(it)
	}
}

// retune resizes from a warm dispatch of per seconds and returns the new
// dispatch's expected time.
func (r *aluRun) retune(a *aluDispatch, per float64) (float64, error) {
	perIter := per / float64(a.iters)
	iters := itersFor(perIter, r.launchS, r.lim, a.row.kind.maxIters())
	if iters != a.iters {
		if err := r.set(a, a.groups, iters); err != nil {
			return 0, err
		}
	}
	return perIter * float64(iters), nil
}

// sample returns operations/s; the output is cleared before the last
// sample, so the check sees its output.
func (r *aluRun) sample(ctx context.Context, a *aluDispatch, cal calibration) (schema.Stat, error) {
	ops := float64(a.opsPerDispatch()) * float64(cal.Iterations)
	rates := make([]float64, 0, cal.Samples)
	for i := 0; i < cal.Samples; i++ {
		if err := ctx.Err(); err != nil {
			return schema.Stat{}, err
		}
		if i == cal.Samples-1 {
			if err := r.clearOut(a); err != nil {
				return schema.Stat{}, err
			}
		}
		t, err := r.d.timeWork(work(a.dispatch, cal.Iterations))
		if err != nil {
			return schema.Stat{}, err
		}
		rates = append(rates, ops/t)
	}
	return stats.Summarize(rates)
}

func (r *aluRun) clearOut(a *aluDispatch) error {
	return r.d.run(func(enc *wgpu.CommandEncoder) error {
		if err := enc.ClearBuffer(r.out, 0, a.invocations()*4); err != nil {
			return fmt.Errorf("webgpu: ClearBuffer: %w", err)
		}
		return nil
	})
}

func (r *aluRun) check(a *aluDispatch, res *ALUResult) error {
	want := aluReference(a.row.kind, a.iters)
	total := refcheck.New()
	err := r.d.readBack(r.out, a.invocations()*4, func(off uint64, chunk []byte) error {
		total.Merge(checkWords(r.view(a.row.Name, off, chunk), off/4, want))
		return nil
	})
	if err != nil {
		return err
	}
	res.Checked = total.Checked
	return wordsErr(a.row.Name, total)
}

func (r *aluRun) view(kernel string, off uint64, chunk []byte) []byte {
	if r.tamper == nil {
		return chunk
	}
	return r.tamper(kernel, off, append([]byte(nil), chunk...))
}

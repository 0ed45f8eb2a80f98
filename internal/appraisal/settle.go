package appraisal

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/everycycle/appraise/gpu"
	"github.com/everycycle/appraise/internal/platform/nvml"
	"github.com/everycycle/appraise/internal/probe"
	"github.com/everycycle/appraise/internal/probe/cublaslt"
	"github.com/everycycle/appraise/schema"
)

// deviceRun is one device's appraisal under way.
type deviceRun struct {
	inst *gpu.Instance
	c    Candidate
	p    DevicePlan
	w    *worker
	lib  *nvml.Lib
	v    *schema.CapabilityVector
	// fma or gemm is the soak that ran, if one did.
	fma  *gpu.SoakProbe
	gemm *cublaslt.SoakProbe
	// web is the WebGPU device opened again after its probes, if it was.
	web *gpu.Device
	// again is the settle pass's table: each source probe's re-measure.
	again []againAction
}

// againAction measures probe's named parts again (all when none); name
// names its stage.
type againAction struct {
	probe string
	name  func() string
	run   func(ctx context.Context, items []string) error
}

// soakSource is the figure source of the soak that ran, whichever it was.
const soakSource = "soak"

// newDeviceRun is the run of c's plan p as worker w into v.
func newDeviceRun(inst *gpu.Instance, c Candidate, p DevicePlan, w *worker, lib *nvml.Lib, v *schema.CapabilityVector) *deviceRun {
	r := &deviceRun{inst: inst, c: c, p: p, w: w, lib: lib, v: v}
	for _, pr := range firstProbes(p) {
		r.again = append(r.again, againAction{pr.Name(), pr.Name, r.webgpuAgain(pr)})
	}
	r.again = append(r.again, againAction{soakSource, r.soakName, r.soakAgain})
	return r
}

// release releases the WebGPU device opened again, if one was.
func (r *deviceRun) release() {
	if r.web != nil {
		r.web.Release()
		r.web = nil
	}
}

// settle is the one settle pass after every probe (settleConsistency):
// the sources of disagreeing rules are measured again through r.again.
func (r *deviceRun) settle(ctx context.Context) error {
	r.w.stage("consistency")
	return settleConsistency(r.v, r.c.Adapter.Software, r.remeasure(ctx))
}

// remeasure says what disagreed, then measures the parts srcs name again,
// probe by probe in the order they ran, into v.
func (r *deviceRun) remeasure(ctx context.Context) func([]figureSource, []schema.ConsistencyCheck) error {
	return func(srcs []figureSource, disagreeing []schema.ConsistencyCheck) error {
		if len(disagreeing) > 0 {
			r.w.stage("consistency: disagreeing: " + checksString(disagreeing))
		}
		for _, a := range r.again {
			items, named := partsOf(srcs, a.probe)
			if !named {
				continue
			}
			name := a.name()
			r.w.stage("consistency: " + strings.TrimSpace(name+" "+strings.Join(items, " ")) + " again")
			if err := a.run(ctx, items); err != nil {
				return err
			}
			r.w.ended(name)
		}
		return nil
	}
}

// partsOf is the parts of probe srcs name, none for the whole probe;
// named is false when srcs do not name probe.
func partsOf(srcs []figureSource, probe string) (items []string, named bool) {
	for _, s := range srcs {
		if s.probe != probe {
			continue
		}
		if named = true; s.item == "" {
			return nil, true
		}
		items = append(items, s.item)
	}
	return items, named
}

// webgpuDevice is the WebGPU device of re-measures, opened once.
func (r *deviceRun) webgpuDevice() (*gpu.Device, error) {
	if r.web != nil {
		return r.web, nil
	}
	opts := r.p.gpu
	opts.Progress = r.w.lines("")
	d, err := gpu.Open(r.inst, r.c.Adapter, opts)
	if err != nil {
		return nil, err
	}
	r.web = d
	return d, nil
}

// webgpuAgain measures the named parts of p again on the WebGPU device.
func (r *deviceRun) webgpuAgain(p probe.Probe[*gpu.Device]) func(context.Context, []string) error {
	return func(ctx context.Context, items []string) error {
		d, err := r.webgpuDevice()
		if err != nil {
			return err
		}
		return r.w.onOwn(func() error { return measureAgain(ctx, d, p, items, r.v) })
	}
}

// soakName names the soak that ran.
func (r *deviceRun) soakName() string {
	if r.gemm != nil {
		return r.gemm.Name()
	}
	return gpu.SoakProbe{}.Name()
}

// soakAgain measures the soak that ran again, in the host's turn.
func (r *deviceRun) soakAgain(ctx context.Context, _ []string) error {
	switch {
	case r.gemm != nil:
		return r.w.soakAgain(ctx, func() error { return measureAgain(ctx, r.c.BusAddress, *r.gemm, nil, r.v) })
	case r.fma != nil:
		d, err := r.webgpuDevice()
		if err != nil {
			return err
		}
		return r.w.soakAgain(ctx, func() error { return measureAgain(ctx, d, *r.fma, nil, r.v) })
	}
	return nil
}

// measureAgain runs p on d again (the parts items names, if any) and puts
// its figures in v in place of the old ones.
func measureAgain[D any](ctx context.Context, d D, p probe.Probe[D], items []string, v *schema.CapabilityVector) error {
	var c *probe.Contribution
	var err error
	if pp, ok := p.(probe.PartProbe[D]); ok && len(items) > 0 {
		c, err = pp.RunParts(ctx, d, items)
	} else {
		items = nil
		c, err = p.Run(ctx, d)
	}
	if err != nil {
		return fmt.Errorf("%w: %s: %w", ErrProbe, p.Name(), err)
	}
	scratch := &schema.CapabilityVector{Memory: &schema.Memory{}}
	if err := add(scratch, c); err != nil {
		return fmt.Errorf("%s: %w", p.Name(), err)
	}
	replaceFigures(p.Name(), items, scratch, v)
	return nil
}

// replaceFigures puts probe's figures in scratch into v in place of its
// old ones: of the parts items names, or of the whole probe.
func replaceFigures(probe string, items []string, scratch, v *schema.CapabilityVector) {
	all := len(items) == 0
	switch probe {
	case gpu.ALUProbe{}.Name():
		v.Precisions = slices.DeleteFunc(v.Precisions, func(p schema.PrecisionThroughput) bool {
			return p.Probe == probe && (all || slices.Contains(items, aluKernelOf(p)))
		})
		v.Precisions = append(v.Precisions, scratch.Precisions...)
	case gpu.StreamProbe{}.Name():
		v.Memory.Bandwidth = slices.DeleteFunc(v.Memory.Bandwidth, func(b schema.Bandwidth) bool {
			return b.Probe == probe && (all || slices.Contains(items, b.Kernel))
		})
		v.Memory.Bandwidth = append(v.Memory.Bandwidth, scratch.Memory.Bandwidth...)
	case gpu.RooflineProbe{}.Name():
		if all {
			v.Roofline = scratch.Roofline
			v.NotMeasured = slices.DeleteFunc(v.NotMeasured, func(o schema.Omission) bool { return o.Field == "roofline" })
			v.NotMeasured = append(v.NotMeasured, scratch.NotMeasured...)
			return
		}
		v.Roofline = slices.DeleteFunc(v.Roofline, func(r schema.RooflineRatio) bool { return slices.Contains(items, r.Precision) })
		v.Roofline = append(v.Roofline, scratch.Roofline...)
		order := func(r schema.RooflineRatio) int {
			return slices.IndexFunc(gpu.RooflineKernels(), func(k gpu.RooflineKernel) bool { return k.Precision == r.Precision })
		}
		slices.SortStableFunc(v.Roofline, func(a, b schema.RooflineRatio) int { return cmp.Compare(order(a), order(b)) })
	case gpu.SoakProbe{}.Name(), cublaslt.SoakProbe{}.Name():
		v.Thermal = scratch.Thermal
		v.NotMeasured = slices.DeleteFunc(v.NotMeasured, func(o schema.Omission) bool {
			return o.Field == "thermal" || strings.HasPrefix(o.Field, "thermal.")
		})
		v.NotMeasured = append(v.NotMeasured, scratch.NotMeasured...)
	}
}

// aluKernelOf names the ALU kernel behind an ALU probe's figure.
func aluKernelOf(p schema.PrecisionThroughput) string {
	for _, k := range gpu.ALUKernels() {
		if k.Operation == p.Operation && k.InputType == p.InputType {
			return k.Name
		}
	}
	return ""
}

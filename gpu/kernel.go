package gpu

import (
	"fmt"

	"github.com/cogentcore/webgpu/wgpu"
	"github.com/everycycle/appraise/wgsl"
)

// kernel is one compiled entry point: a compute pipeline whose bind group
// layout WebGPU derived from the entry point (only the bindings it uses).
type kernel struct {
	entry    string
	pipeline *wgpu.ComputePipeline
	layout   *wgpu.BindGroupLayout
}

// release frees the kernel's pipeline and layout.
func (k *kernel) release() {
	if k.layout != nil {
		k.layout.Release()
	}
	if k.pipeline != nil {
		k.pipeline.Release()
	}
}

// kernelSet is one WGSL file compiled once, with a pipeline per entry point.
type kernelSet struct {
	module  *wgpu.ShaderModule
	kernels map[string]*kernel
}

// release frees every pipeline and the shader module. Safe on a partial set.
func (s *kernelSet) release() {
	for _, k := range s.kernels {
		k.release()
	}
	s.kernels = nil
	if s.module != nil {
		s.module.Release()
		s.module = nil
	}
}

// compile compiles the embedded WGSL file and a pipeline for each entry
// point. The caller releases the set; on error nothing is left behind.
func (d *Device) compile(file string, entries ...string) (*kernelSet, error) {
	src, err := wgsl.Source(file)
	if err != nil {
		return nil, err
	}
	if err := d.alive(); err != nil {
		return nil, err
	}
	module, err := d.dev.CreateShaderModule(&wgpu.ShaderModuleDescriptor{
		Label:          file,
		WGSLDescriptor: &wgpu.ShaderModuleWGSLDescriptor{Code: src},
	})
	if err != nil {
		return nil, fmt.Errorf("webgpu: CreateShaderModule %s.wgsl: %w", file, err)
	}
	s := &kernelSet{module: module, kernels: map[string]*kernel{}}
	for _, e := range entries {
		k, err := d.pipeline(module, file, e)
		if err != nil {
			s.release()
			return nil, err
		}
		s.kernels[e] = k
	}
	return s, nil
}

// pipeline creates the compute pipeline of one entry point with a layout
// derived from the shader.
func (d *Device) pipeline(module *wgpu.ShaderModule, file, entry string) (*kernel, error) {
	p, err := d.dev.CreateComputePipeline(&wgpu.ComputePipelineDescriptor{
		Label:   file + "." + entry,
		Compute: wgpu.ProgrammableStageDescriptor{Module: module, EntryPoint: entry},
	})
	if err != nil {
		return nil, fmt.Errorf("webgpu: CreateComputePipeline %s.wgsl:%s: %w", file, entry, err)
	}
	return &kernel{entry: entry, pipeline: p, layout: p.GetBindGroupLayout(0)}, nil
}

// binding puts a whole buffer at a binding slot of group 0.
type binding struct {
	slot uint32
	buf  *wgpu.Buffer
}

// bindGroup binds buffers to k's group 0. The caller releases it.
func (d *Device) bindGroup(k *kernel, bs ...binding) (*wgpu.BindGroup, error) {
	entries := make([]wgpu.BindGroupEntry, len(bs))
	for i, b := range bs {
		entries[i] = wgpu.BindGroupEntry{Binding: b.slot, Buffer: b.buf, Size: b.buf.GetSize()}
	}
	bg, err := d.dev.CreateBindGroup(&wgpu.BindGroupDescriptor{
		Label: k.entry, Layout: k.layout, Entries: entries,
	})
	if err != nil {
		return nil, fmt.Errorf("webgpu: CreateBindGroup for %s: %w", k.entry, err)
	}
	return bg, nil
}

// dispatch is one kernel launch: a pipeline, its bind group and a grid of
// x by y workgroups.
type dispatch struct {
	k    *kernel
	bg   *wgpu.BindGroup
	x, y uint32
}

// record records repeat rounds of the dispatches in one compute pass.
// WebGPU orders dispatches in a pass and makes each one's writes visible to
// the next, so the rounds run back to back like separate kernel launches.
func record(enc *wgpu.CommandEncoder, ds []dispatch, repeat int) error {
	pass := enc.BeginComputePass(nil)
	defer pass.Release()
	for r := 0; r < repeat; r++ {
		for _, d := range ds {
			pass.SetPipeline(d.k.pipeline)
			pass.SetBindGroup(0, d.bg, nil)
			pass.DispatchWorkgroups(d.x, d.y, 1)
		}
	}
	if err := pass.End(); err != nil {
		return fmt.Errorf("webgpu: ComputePassEncoder.End: %w", err)
	}
	return nil
}

// grid lays groups workgroups out as x by y, both at most maxPerDim, using
// as few rows as possible and spreading the groups evenly over them, so
// x*y >= groups with a surplus below y. Kernels skip workgroups whose
// flattened index is >= groups.
func grid(groups, maxPerDim uint32) (x, y uint32, err error) {
	if groups == 0 || maxPerDim == 0 {
		return 0, 0, fmt.Errorf("gpu: grid of %d workgroups with at most %d per dimension", groups, maxPerDim)
	}
	y = (groups + maxPerDim - 1) / maxPerDim
	if y > maxPerDim {
		return 0, 0, fmt.Errorf("gpu: %d workgroups do not fit a %d x %d grid", groups, maxPerDim, maxPerDim)
	}
	x = (groups + y - 1) / y
	return x, y, nil
}

// probeKernels lists, by WGSL file, the entry points each probe compiles.
func probeKernels() map[string][]string {
	var bw []string
	for _, k := range BandwidthKernels() {
		bw = append(bw, k.Entry)
	}
	return map[string][]string{
		"bandwidth": bw,
		"launch":    {launchEntry},
	}
}

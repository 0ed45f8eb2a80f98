package gpu

import (
	"fmt"

	"github.com/cogentcore/webgpu/wgpu"
	"github.com/everycycle/appraise/wgsl"
)

type kernel struct {
	entry    string
	pipeline *wgpu.ComputePipeline
	set      *kernelSet
}

// kernelSet is one WGSL file compiled once, with a pipeline per entry point
// over one explicit layout of every binding the file declares: wgpu-native
// never frees a pipeline with a derived layout. A binding an entry point
// does not use is bound to a placeholder buffer.
type kernelSet struct {
	module   *wgpu.ShaderModule
	bindings []wgsl.Binding
	layout   *wgpu.BindGroupLayout
	pipeLay  *wgpu.PipelineLayout
	dummies  map[uint32]*wgpu.Buffer
	kernels  map[string]*kernel
}

// placeholderBytes exceeds any uniform struct or array element of ours.
const placeholderBytes = 256

// release is safe on a partial set.
func (s *kernelSet) release() {
	for _, k := range s.kernels {
		if k.pipeline != nil {
			k.pipeline.Release()
		}
	}
	s.kernels = nil
	for _, b := range s.dummies {
		b.Release()
	}
	s.dummies = nil
	if s.pipeLay != nil {
		s.pipeLay.Release()
		s.pipeLay = nil
	}
	if s.layout != nil {
		s.layout.Release()
		s.layout = nil
	}
	if s.module != nil {
		s.module.Release()
		s.module = nil
	}
}

// compile compiles the embedded WGSL file with a pipeline for each entry
// point. The caller releases the set; on error nothing is left behind.
func (d *Device) compile(file string, entries ...string) (*kernelSet, error) {
	src, err := wgsl.Source(file)
	if err != nil {
		return nil, err
	}
	if err := d.alive(); err != nil {
		return nil, err
	}
	s := &kernelSet{bindings: wgsl.Bindings(src), dummies: map[uint32]*wgpu.Buffer{}, kernels: map[string]*kernel{}}
	if err := d.buildSet(s, file, src, entries); err != nil {
		s.release()
		return nil, err
	}
	return s, nil
}

func (d *Device) buildSet(s *kernelSet, file, src string, entries []string) error {
	var err error
	s.module, err = d.dev.CreateShaderModule(&wgpu.ShaderModuleDescriptor{
		Label:          file,
		WGSLDescriptor: &wgpu.ShaderModuleWGSLDescriptor{Code: src},
	})
	if err != nil {
		return fmt.Errorf("webgpu: CreateShaderModule %s.wgsl: %w", file, err)
	}
	var les []wgpu.BindGroupLayoutEntry
	for _, b := range s.bindings {
		typ, usage := wgpu.BufferBindingTypeStorage, wgpu.BufferUsageStorage
		switch b.Space {
		case wgsl.SpaceUniform:
			typ, usage = wgpu.BufferBindingTypeUniform, wgpu.BufferUsageUniform
		case wgsl.SpaceStorageRead:
			typ = wgpu.BufferBindingTypeReadOnlyStorage
		}
		les = append(les, wgpu.BindGroupLayoutEntry{Binding: b.Slot, Visibility: wgpu.ShaderStageCompute, Buffer: wgpu.BufferBindingLayout{Type: typ}})
		if s.dummies[b.Slot], err = d.newBuffer(fmt.Sprintf("%s.placeholder%d", file, b.Slot), placeholderBytes, usage); err != nil {
			return err
		}
	}
	if s.layout, err = d.dev.CreateBindGroupLayout(&wgpu.BindGroupLayoutDescriptor{Label: file, Entries: les}); err != nil {
		return fmt.Errorf("webgpu: CreateBindGroupLayout %s.wgsl: %w", file, err)
	}
	if s.pipeLay, err = d.dev.CreatePipelineLayout(&wgpu.PipelineLayoutDescriptor{Label: file, BindGroupLayouts: []*wgpu.BindGroupLayout{s.layout}}); err != nil {
		return fmt.Errorf("webgpu: CreatePipelineLayout %s.wgsl: %w", file, err)
	}
	for _, e := range entries {
		p, err := d.dev.CreateComputePipeline(&wgpu.ComputePipelineDescriptor{
			Label:   file + "." + e,
			Layout:  s.pipeLay,
			Compute: wgpu.ProgrammableStageDescriptor{Module: s.module, EntryPoint: e},
		})
		if err != nil {
			return fmt.Errorf("webgpu: CreateComputePipeline %s.wgsl:%s: %w", file, e, err)
		}
		s.kernels[e] = &kernel{entry: e, pipeline: p, set: s}
	}
	return nil
}

type binding struct {
	slot uint32
	buf  *wgpu.Buffer
}

// bindGroup binds buffers to k's group 0, placeholders to the slots bs
// leaves out. The caller releases it.
func (d *Device) bindGroup(k *kernel, bs ...binding) (*wgpu.BindGroup, error) {
	return d.bindGroupAt(k, nil, bs...)
}

// boundRange is the part of a buffer bound to a slot, in bytes: offset a
// multiple of 256, size of the slot's element size.
type boundRange struct{ offset, size uint64 }

// bindGroupAt is bindGroup with the slots in at bound to a range of their
// buffer.
func (d *Device) bindGroupAt(k *kernel, at map[uint32]boundRange, bs ...binding) (*wgpu.BindGroup, error) {
	given := map[uint32]*wgpu.Buffer{}
	for _, b := range bs {
		if _, ok := k.set.dummies[b.slot]; !ok {
			return nil, fmt.Errorf("gpu: %s has no binding %d", k.entry, b.slot)
		}
		given[b.slot] = b.buf
	}
	var entries []wgpu.BindGroupEntry
	for _, decl := range k.set.bindings {
		buf, ok := given[decl.Slot]
		if !ok {
			buf = k.set.dummies[decl.Slot]
		}
		e := wgpu.BindGroupEntry{Binding: decl.Slot, Buffer: buf, Size: buf.GetSize()}
		if r, ok := at[decl.Slot]; ok {
			e.Offset, e.Size = r.offset, r.size
		}
		entries = append(entries, e)
	}
	bg, err := d.dev.CreateBindGroup(&wgpu.BindGroupDescriptor{
		Label: k.entry, Layout: k.set.layout, Entries: entries,
	})
	if err != nil {
		return nil, fmt.Errorf("webgpu: CreateBindGroup for %s: %w", k.entry, err)
	}
	return bg, nil
}

type dispatch struct {
	k    *kernel
	bg   *wgpu.BindGroup
	x, y uint32
}

// record records repeat rounds of the dispatches in one compute pass; each
// dispatch sees the writes of the one before.
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

// grid lays groups workgroups out as x by y, both at most maxPerDim, in as
// few rows as possible, with a surplus below y. Kernels skip workgroups
// whose flattened index is >= groups.
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

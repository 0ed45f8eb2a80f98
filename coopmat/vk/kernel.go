package vk

import (
	"context"
	"encoding/binary"
	"fmt"
	"unsafe"

	vk "github.com/vulkan-go/vulkan"
)

// Kernel is a compute pipeline from SPIR-V words with its storage buffers
// bound to set 0, bindings 0…n-1 in order. Release it before its Device;
// the buffers must outlive it.
type Kernel struct {
	D      *Device
	module vk.ShaderModule
	dsl    vk.DescriptorSetLayout
	layout vk.PipelineLayout
	Pipe   vk.Pipeline
	pool   vk.DescriptorPool
	sets   []vk.DescriptorSet // one per list of buffers
	push   []byte             // pushed with every dispatch
	opts   PipelineOpts
}

// NewKernel creates a compute pipeline from words with buffers bound.
func (d *Device) NewKernel(words []uint32, buffers ...*Buffer) (*Kernel, error) {
	return d.NewKernelSets(words, [][]*Buffer{buffers})
}

// NewKernelSets is NewKernel on several lists of buffers of one length;
// DispatchSet(cb, i, …) runs on sets[i].
func (d *Device) NewKernelSets(words []uint32, sets [][]*Buffer) (*Kernel, error) {
	return d.NewKernelOpts(words, nil, PipelineOpts{}, sets)
}

// PipelineOpts are how NewKernelOpts creates a pipeline; each option needs
// the device feature of its name.
type PipelineOpts struct {
	FullSubgroups bool // require full subgroups
	Capture       bool // keep what the driver compiled (ExecutableInfo)
}

// NewKernelOpts is NewKernelSets with push as the push-constant block and o.
func (d *Device) NewKernelOpts(words []uint32, push []byte, o PipelineOpts, sets [][]*Buffer) (*Kernel, error) {
	switch {
	case o.FullSubgroups && !d.Enabled.FullSubgroups:
		return nil, fmt.Errorf("vulkan: computeFullSubgroups: %w", ErrFeatureMissing)
	case o.Capture && !d.Enabled.ExecutableInfo:
		return nil, fmt.Errorf("vulkan: pipelineExecutableInfo: %w", ErrFeatureMissing)
	}
	k := &Kernel{D: d, push: push, opts: o}
	if err := k.create(words, sets); err != nil {
		k.Release()
		return nil, err
	}
	return k, nil
}

func (k *Kernel) create(words []uint32, sets [][]*Buffer) error {
	d := k.D
	smi := vk.ShaderModuleCreateInfo{
		SType: vk.StructureTypeShaderModuleCreateInfo, CodeSize: uint(4 * len(words)), PCode: words,
	}
	var sm vk.ShaderModule
	if r := vk.CreateShaderModule(d.Dev, &smi, nil, &sm); r != vk.Success {
		return fmt.Errorf("vulkan: vkCreateShaderModule: %w", vk.Error(r))
	}
	k.module = sm
	if err := k.createLayout(len(sets[0])); err != nil {
		return err
	}
	if err := k.createPipeline(); err != nil {
		return err
	}
	return k.createSets(sets)
}

func (k *Kernel) createLayout(n int) error {
	d := k.D
	binds := make([]vk.DescriptorSetLayoutBinding, n)
	for i := range binds {
		binds[i] = vk.DescriptorSetLayoutBinding{
			Binding: uint32(i), DescriptorType: vk.DescriptorTypeStorageBuffer, DescriptorCount: 1,
			StageFlags: vk.ShaderStageFlags(vk.ShaderStageComputeBit),
		}
	}
	dli := vk.DescriptorSetLayoutCreateInfo{
		SType: vk.StructureTypeDescriptorSetLayoutCreateInfo, BindingCount: uint32(n), PBindings: binds,
	}
	var dsl vk.DescriptorSetLayout
	if r := vk.CreateDescriptorSetLayout(d.Dev, &dli, nil, &dsl); r != vk.Success {
		return fmt.Errorf("vulkan: vkCreateDescriptorSetLayout: %w", vk.Error(r))
	}
	k.dsl = dsl
	pli := vk.PipelineLayoutCreateInfo{
		SType: vk.StructureTypePipelineLayoutCreateInfo, SetLayoutCount: 1, PSetLayouts: []vk.DescriptorSetLayout{dsl},
	}
	if len(k.push) > 0 {
		pli.PushConstantRangeCount = 1
		pli.PPushConstantRanges = []vk.PushConstantRange{{
			StageFlags: vk.ShaderStageFlags(vk.ShaderStageComputeBit), Size: uint32(len(k.push)),
		}}
	}
	var pl vk.PipelineLayout
	if r := vk.CreatePipelineLayout(d.Dev, &pli, nil, &pl); r != vk.Success {
		return fmt.Errorf("vulkan: vkCreatePipelineLayout: %w", vk.Error(r))
	}
	k.layout = pl
	return nil
}

func (k *Kernel) createPipeline() error {
	var stageFlags vk.PipelineShaderStageCreateFlags
	if k.opts.FullSubgroups {
		stageFlags = stageRequireFullSubgroups
	}
	var flags vk.PipelineCreateFlags
	if k.opts.Capture {
		flags = pipelineCapture
	}
	ci := []vk.ComputePipelineCreateInfo{{
		SType: vk.StructureTypeComputePipelineCreateInfo,
		Stage: vk.PipelineShaderStageCreateInfo{
			SType: vk.StructureTypePipelineShaderStageCreateInfo, Stage: vk.ShaderStageComputeBit, Flags: stageFlags,
			Module: k.module, PName: "main\x00",
		},
		Layout: k.layout, Flags: flags,
	}}
	pipes := make([]vk.Pipeline, 1)
	if r := vk.CreateComputePipelines(k.D.Dev, vk.NullPipelineCache, 1, ci, nil, pipes); r != vk.Success {
		return fmt.Errorf("vulkan: vkCreateComputePipelines: %w", vk.Error(r))
	}
	k.Pipe = pipes[0]
	return nil
}

func (k *Kernel) createSets(sets [][]*Buffer) error {
	d := k.D
	n, ns := uint32(len(sets[0])), uint32(len(sets))
	pi := vk.DescriptorPoolCreateInfo{
		SType: vk.StructureTypeDescriptorPoolCreateInfo, MaxSets: ns, PoolSizeCount: 1,
		PPoolSizes: []vk.DescriptorPoolSize{{Type: vk.DescriptorTypeStorageBuffer, DescriptorCount: max(n*ns, 1)}},
	}
	var pool vk.DescriptorPool
	if r := vk.CreateDescriptorPool(d.Dev, &pi, nil, &pool); r != vk.Success {
		return fmt.Errorf("vulkan: vkCreateDescriptorPool: %w", vk.Error(r))
	}
	k.pool = pool
	layouts := make([]vk.DescriptorSetLayout, ns)
	for i := range layouts {
		layouts[i] = k.dsl
	}
	ai := vk.DescriptorSetAllocateInfo{
		SType: vk.StructureTypeDescriptorSetAllocateInfo, DescriptorPool: pool,
		DescriptorSetCount: ns, PSetLayouts: layouts,
	}
	k.sets = make([]vk.DescriptorSet, ns)
	if r := vk.AllocateDescriptorSets(d.Dev, &ai, &k.sets[0]); r != vk.Success {
		k.sets = nil
		return fmt.Errorf("vulkan: vkAllocateDescriptorSets: %w", vk.Error(r))
	}
	var writes []vk.WriteDescriptorSet
	for s, buffers := range sets {
		if uint32(len(buffers)) != n {
			return fmt.Errorf("vulkan: kernel set %d has %d buffers, set 0 has %d", s, len(buffers), n)
		}
		for i, b := range buffers {
			writes = append(writes, vk.WriteDescriptorSet{
				SType: vk.StructureTypeWriteDescriptorSet, DstSet: k.sets[s], DstBinding: uint32(i),
				DescriptorCount: 1, DescriptorType: vk.DescriptorTypeStorageBuffer,
				PBufferInfo: []vk.DescriptorBufferInfo{{Buffer: b.Buf, Range: vk.DeviceSize(vk.WholeSize)}},
			})
		}
	}
	vk.UpdateDescriptorSets(d.Dev, uint32(len(writes)), writes, 0, nil)
	return nil
}

// Dispatch records binding and one dispatch of groups workgroups.
func (k *Kernel) Dispatch(cb vk.CommandBuffer, groups [3]uint32) { k.DispatchSet(cb, 0, groups) }

// DispatchSet is dispatch on the buffers of set i.
func (k *Kernel) DispatchSet(cb vk.CommandBuffer, i int, groups [3]uint32) {
	vk.CmdBindPipeline(cb, vk.PipelineBindPointCompute, k.Pipe)
	vk.CmdBindDescriptorSets(cb, vk.PipelineBindPointCompute, k.layout, 0, 1, []vk.DescriptorSet{k.sets[i]}, 0, nil)
	if len(k.push) > 0 {
		vk.CmdPushConstants(cb, k.layout, vk.ShaderStageFlags(vk.ShaderStageComputeBit), 0, uint32(len(k.push)), unsafe.Pointer(&k.push[0]))
	}
	vk.CmdDispatch(cb, groups[0], groups[1], groups[2])
}

// Release destroys the pipeline and its descriptor objects. Safe twice.
func (k *Kernel) Release() {
	if k == nil || k.D == nil || k.D.Dev == nil {
		return
	}
	dev := k.D.Dev
	if k.pool != nil {
		vk.DestroyDescriptorPool(dev, k.pool, nil)
		k.pool, k.sets = nil, nil
	}
	if k.Pipe != nil {
		vk.DestroyPipeline(dev, k.Pipe, nil)
		k.Pipe = nil
	}
	if k.layout != nil {
		vk.DestroyPipelineLayout(dev, k.layout, nil)
		k.layout = nil
	}
	if k.dsl != nil {
		vk.DestroyDescriptorSetLayout(dev, k.dsl, nil)
		k.dsl = nil
	}
	if k.module != nil {
		vk.DestroyShaderModule(dev, k.module, nil)
		k.module = nil
	}
}

func unsafePointer(s []uint64) unsafe.Pointer { return unsafe.Pointer(&s[0]) }

// RunKernel times the kernel with inputs as bindings 0… and an output of
// outBytes last, and returns the last output.
func (d *Device) RunKernel(ctx context.Context, words []uint32, inputs [][]byte, setup KernelSetup, outBytes uint64,
	groups [3]uint32, ops float64, tm Timing) ([]byte, measurement, error) {
	b, err := d.bind(KernelRun{Words: words, Inputs: inputs, Setup: setup, OutBytes: outBytes})
	if err != nil {
		return nil, measurement{}, err
	}
	defer b.release()
	m, err := d.Measure(ctx, b.k, groups, ops, tm)
	if err != nil {
		return nil, measurement{}, err
	}
	raw, err := b.output()
	return raw, m, err
}

// KernelRun is one kernel of RunAlternating, as RunKernel takes it.
type KernelRun struct {
	Words    []uint32
	Inputs   [][]byte
	Setup    KernelSetup
	OutBytes uint64
	Groups   [3]uint32
	Ops      float64 // per dispatch
}

// bound is a kernel with its buffers, the output last.
type bound struct {
	k    *Kernel
	bufs []*Buffer
	n    uint64
}

func (b *bound) release() {
	b.k.Release()
	for _, buf := range b.bufs {
		buf.Release()
	}
}

func (b *bound) output() ([]byte, error) { return b.k.D.Download(b.bufs[len(b.bufs)-1], b.n) }

// bind uploads r's inputs, makes its output and builds its kernel.
func (d *Device) bind(r KernelRun) (_ *bound, err error) {
	b := &bound{bufs: make([]*Buffer, 0, len(r.Inputs)+1), n: r.OutBytes}
	defer func() {
		if err != nil {
			b.release()
		}
	}()
	var push []byte
	for i, in := range r.Inputs {
		var buf *Buffer
		size := uint64(len(in))
		if i < len(r.Setup.Pad) {
			size += r.Setup.Pad[i]
		}
		if r.Setup.Addressed {
			buf, err = d.NewAddressedBuffer(size)
		} else {
			buf, err = d.NewBuffer(size, false)
		}
		if err != nil {
			return nil, fmt.Errorf("input %d: %w", i, err)
		}
		b.bufs = append(b.bufs, buf)
		if r.Setup.Addressed {
			push = binary.LittleEndian.AppendUint64(push, buf.Address)
		}
		if err := d.Upload(buf, in); err != nil {
			return nil, fmt.Errorf("input %d: %w", i, err)
		}
	}
	out, err := d.NewBuffer(r.OutBytes, false)
	if err != nil {
		return nil, fmt.Errorf("output: %w", err)
	}
	b.bufs = append(b.bufs, out)
	b.k, err = d.NewKernelOpts(r.Words, push, PipelineOpts{FullSubgroups: r.Setup.FullSubgroups, Capture: r.Setup.Inspect != nil}, [][]*Buffer{b.bufs})
	if err != nil {
		return nil, err
	}
	if r.Setup.Inspect != nil {
		r.Setup.Inspect(d.Ext.Executables(d.Dev, b.k.Pipe))
	}
	return b, nil
}

// RunGEMM is RunKernel for kernels with inputs A and B.
func (d *Device) RunGEMM(ctx context.Context, words []uint32, a, b []byte, setup KernelSetup, outBytes uint64,
	groups [3]uint32, ops float64, tm Timing) ([]byte, measurement, error) {
	return d.RunKernel(ctx, words, [][]byte{a, b}, setup, outBytes, groups, ops, tm)
}

// KernelSetup is how RunKernel builds a kernel; the zero value is plain.
type KernelSetup struct {
	// Addressed pushes each input's 64-bit device address, in order.
	Addressed     bool
	FullSubgroups bool
	Pad           []uint64 // bytes past input i's data, left unwritten
	// Inspect, when set, gets what the driver compiled (needs ExecutableInfo).
	Inspect func([]Executable, error)
}

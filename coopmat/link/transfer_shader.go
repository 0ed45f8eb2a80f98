package link

import (
	"fmt"

	vk "github.com/vulkan-go/vulkan"

	"github.com/everycycle/appraise/coopmat/spirv"
	vulkan "github.com/everycycle/appraise/coopmat/vk"
)

// A route moves bytes between host and device memory: a queue's copy
// command, or a kernel whose invocations pull or push (shader).
type route struct {
	q      *vulkan.Queue
	shader bool
}

// name is the route's part of a path: "copy.", "pull." or "push." and the queue.
func (r route) name(up bool) string {
	switch {
	case !r.shader:
		return "copy." + r.q.Name
	case up:
		return "pull." + r.q.Name
	}
	return "push." + r.q.Name
}

// Shape of the stream kernel: 16-byte words, workgroups of streamGroupSize.
const (
	streamWordBytes    = 16
	streamGroupSize    = 256
	streamMaxGroups    = 65535
	streamGroupsTarget = 4096
)

// streamShape splits n bytes over workgroups, invocation g moving words
// j·groups·streamGroupSize + g, so that a subgroup's steps touch
// consecutive words.
func streamShape(n uint64) (groups, per uint32, err error) {
	const unit = streamWordBytes * streamGroupSize
	if n == 0 || n%unit != 0 {
		return 0, 0, fmt.Errorf("stream of %d bytes: want a positive multiple of %d", n, unit)
	}
	g := n / unit
	p := uint64(1)
	for g > streamGroupsTarget && g%2 == 0 {
		g, p = g/2, p*2
	}
	if g > streamMaxGroups {
		return 0, 0, fmt.Errorf("stream of %d bytes: %d workgroups, more than %d", n, g, streamMaxGroups)
	}
	return uint32(g), uint32(p), nil
}

// streamKernel emits the kernel copying binding 0 into binding 1.
func streamKernel(version uint32, groups, per uint32) []uint32 {
	b := vulkan.NewBuilder(version)
	m := b.M
	vec := m.TypeVector(b.U32, 4)
	src, srcPtr := b.Storage(vec, streamWordBytes)
	m.Decorate(src, spirv.DecorationNonWritable)
	dst, dstPtr := b.Storage(vec, streamWordBytes)
	m.Decorate(dst, spirv.DecorationNonReadable)
	gid := b.Builtin(spirv.BuiltInGlobalInvocationID, false)
	stride := b.C(groups * streamGroupSize)
	b.F.Loop(b.C(per), nil, func(j spirv.ID, _ []spirv.ID) []spirv.ID {
		i := b.Add(b.Mul(j, stride), gid)
		b.F.Store(b.Elem(dstPtr, dst, i), b.F.Load(vec, b.Elem(srcPtr, src, i)))
		return nil
	})
	return b.Finish(streamGroupSize, 1, 1)
}

// stream is the stream kernel for n-byte buffers over several pairs.
type stream struct {
	k      *vulkan.Kernel
	groups uint32
}

// newStream builds it with one descriptor set per {source, destination} pair.
func newStream(d *vulkan.Device, n uint64, pairs [][]*vulkan.Buffer) (*stream, error) {
	groups, per, err := streamShape(n)
	if err != nil {
		return nil, err
	}
	k, err := d.NewKernelSets(streamKernel(vulkan.SpirvVersion(d.Info.API), groups, per), pairs)
	if err != nil {
		return nil, err
	}
	return &stream{k: k, groups: groups}, nil
}

func (s *stream) release() {
	if s != nil {
		s.k.Release()
	}
}

// move records the stream over pair i, timed by t unless t is nil.
func (s *stream) move(cb vk.CommandBuffer, t *vulkan.Timer, i int) {
	t.Reset(cb)
	vulkan.MemoryBarrier(cb, vk.AccessTransferWriteBit|vk.AccessShaderWriteBit, vk.AccessShaderReadBit|vk.AccessShaderWriteBit,
		vk.PipelineStageTransferBit|vk.PipelineStageComputeShaderBit, vk.PipelineStageComputeShaderBit)
	t.Stamp(cb, 0, vk.PipelineStageTopOfPipeBit)
	s.k.DispatchSet(cb, i, [3]uint32{s.groups, 1, 1})
	t.Stamp(cb, 1, vk.PipelineStageBottomOfPipeBit)
	vulkan.MemoryBarrier(cb, vk.AccessShaderWriteBit, vk.AccessHostReadBit|vk.AccessTransferReadBit|vk.AccessShaderReadBit,
		vk.PipelineStageComputeShaderBit, vk.PipelineStageHostBit|vk.PipelineStageTransferBit|vk.PipelineStageComputeShaderBit)
}

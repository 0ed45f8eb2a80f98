package coopmat

import (
	"fmt"
	"time"

	vk "github.com/vulkan-go/vulkan"

	"github.com/everycycle/appraise/schema"
)

// fenceTimeout bounds every wait for the GPU, in nanoseconds.
const fenceTimeout = uint64(120 * time.Second)

func memoryBarrier(cb vk.CommandBuffer, src, dst vk.AccessFlagBits, srcStage, dstStage vk.PipelineStageFlagBits) {
	mb := []vk.MemoryBarrier{{
		SType: vk.StructureTypeMemoryBarrier, SrcAccessMask: vk.AccessFlags(src), DstAccessMask: vk.AccessFlags(dst),
	}}
	vk.CmdPipelineBarrier(cb, vk.PipelineStageFlags(srcStage), vk.PipelineStageFlags(dstStage), 0, 1, mb, 0, nil, 0, nil)
}

// commands is a primary command buffer and a fence to wait on it.
type commands struct {
	d     *Device
	cb    vk.CommandBuffer
	fence vk.Fence
}

func (d *Device) newCommands() (*commands, error) {
	c := &commands{d: d}
	info := vk.CommandBufferAllocateInfo{
		SType: vk.StructureTypeCommandBufferAllocateInfo, CommandPool: d.pool,
		Level: vk.CommandBufferLevelPrimary, CommandBufferCount: 1,
	}
	cbs := make([]vk.CommandBuffer, 1)
	if r := vk.AllocateCommandBuffers(d.dev, &info, cbs); r != vk.Success {
		return nil, fmt.Errorf("vulkan: vkAllocateCommandBuffers: %w", vk.Error(r))
	}
	c.cb = cbs[0]
	var f vk.Fence
	fi := vk.FenceCreateInfo{SType: vk.StructureTypeFenceCreateInfo}
	if r := vk.CreateFence(d.dev, &fi, nil, &f); r != vk.Success {
		c.release()
		return nil, fmt.Errorf("vulkan: vkCreateFence: %w", vk.Error(r))
	}
	c.fence = f
	return c, nil
}

func (c *commands) release() {
	if c == nil || c.d.dev == nil {
		return
	}
	if c.fence != nil {
		vk.DestroyFence(c.d.dev, c.fence, nil)
		c.fence = nil
	}
	if c.cb != nil {
		vk.FreeCommandBuffers(c.d.dev, c.d.pool, 1, []vk.CommandBuffer{c.cb})
		c.cb = nil
	}
}

// record (re)records the command buffer for repeated submission.
func (c *commands) record(fn func(cb vk.CommandBuffer)) error {
	begin := vk.CommandBufferBeginInfo{SType: vk.StructureTypeCommandBufferBeginInfo}
	if r := vk.BeginCommandBuffer(c.cb, &begin); r != vk.Success {
		return fmt.Errorf("vulkan: vkBeginCommandBuffer: %w", vk.Error(r))
	}
	fn(c.cb)
	if r := vk.EndCommandBuffer(c.cb); r != vk.Success {
		return fmt.Errorf("vulkan: vkEndCommandBuffer: %w", vk.Error(r))
	}
	return nil
}

// submit runs the recorded commands and waits; it returns the host time from
// submit until the fence signalled.
func (c *commands) submit() (time.Duration, error) {
	if r := vk.ResetFences(c.d.dev, 1, []vk.Fence{c.fence}); r != vk.Success {
		return 0, fmt.Errorf("vulkan: vkResetFences: %w", vk.Error(r))
	}
	si := []vk.SubmitInfo{{SType: vk.StructureTypeSubmitInfo, CommandBufferCount: 1, PCommandBuffers: []vk.CommandBuffer{c.cb}}}
	start := time.Now()
	if r := vk.QueueSubmit(c.d.queue, 1, si, c.fence); r != vk.Success {
		return 0, fmt.Errorf("vulkan: vkQueueSubmit: %w", vk.Error(r))
	}
	if r := vk.WaitForFences(c.d.dev, 1, []vk.Fence{c.fence}, vk.True, fenceTimeout); r != vk.Success {
		return 0, fmt.Errorf("vulkan: vkWaitForFences: %w", vk.Error(r))
	}
	return time.Since(start), nil
}

// submitOnce records fn into a fresh command buffer, runs it and waits.
func (d *Device) submitOnce(fn func(cb vk.CommandBuffer)) error {
	c, err := d.newCommands()
	if err != nil {
		return err
	}
	defer c.release()
	if err := c.record(fn); err != nil {
		return err
	}
	_, err = c.submit()
	return err
}

// timer brackets recorded work with two timestamp queries when the queue
// supports them; otherwise it falls back to the host clock.
type timer struct {
	d    *Device
	pool vk.QueryPool
}

func (d *Device) newTimer() (*timer, error) {
	t := &timer{d: d}
	if d.Info.TimestampValidBits == 0 || d.Info.TimestampPeriodNs <= 0 {
		return t, nil
	}
	info := vk.QueryPoolCreateInfo{SType: vk.StructureTypeQueryPoolCreateInfo, QueryType: vk.QueryTypeTimestamp, QueryCount: 2}
	var qp vk.QueryPool
	if r := vk.CreateQueryPool(d.dev, &info, nil, &qp); r != vk.Success {
		return nil, fmt.Errorf("vulkan: vkCreateQueryPool: %w", vk.Error(r))
	}
	t.pool = qp
	return t, nil
}

func (t *timer) release() {
	if t != nil && t.pool != nil && t.d.dev != nil {
		vk.DestroyQueryPool(t.d.dev, t.pool, nil)
		t.pool = nil
	}
}

// method says how durations from this timer were measured.
func (t *timer) method() schema.TimingMethod {
	if t.pool != nil {
		return schema.TimingGPUTimestamp
	}
	return schema.TimingQueueWallClock
}

func (t *timer) begin(cb vk.CommandBuffer) {
	if t.pool != nil {
		vk.CmdResetQueryPool(cb, t.pool, 0, 2)
		vk.CmdWriteTimestamp(cb, vk.PipelineStageTopOfPipeBit, t.pool, 0)
	}
}

func (t *timer) end(cb vk.CommandBuffer) {
	if t.pool != nil {
		vk.CmdWriteTimestamp(cb, vk.PipelineStageBottomOfPipeBit, t.pool, 1)
	}
}

// seconds returns the GPU time between begin and end, or host if the queue
// has no timestamps.
func (t *timer) seconds(host time.Duration) (float64, error) {
	if t.pool == nil {
		return host.Seconds(), nil
	}
	ts := make([]uint64, 2)
	flags := vk.QueryResultFlags(vk.QueryResult64Bit | vk.QueryResultWaitBit)
	if r := vk.GetQueryPoolResults(t.d.dev, t.pool, 0, 2, 16, unsafePointer(ts), 8, flags); r != vk.Success {
		return 0, fmt.Errorf("vulkan: vkGetQueryPoolResults: %w", vk.Error(r))
	}
	bits := t.d.Info.TimestampValidBits
	mask := ^uint64(0)
	if bits < 64 {
		mask = 1<<bits - 1
	}
	ticks := (ts[1] - ts[0]) & mask
	return float64(ticks) * t.d.Info.TimestampPeriodNs * 1e-9, nil
}

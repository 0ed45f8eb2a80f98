package vk

import (
	"errors"
	"fmt"
	"time"

	vk "github.com/vulkan-go/vulkan"

	"github.com/everycycle/appraise/schema"
)

// fenceTimeout bounds every wait for the GPU, in nanoseconds.
const fenceTimeout = uint64(120 * time.Second)

// MemoryBarrier records a global memory barrier.
func MemoryBarrier(cb vk.CommandBuffer, src, dst vk.AccessFlagBits, srcStage, dstStage vk.PipelineStageFlagBits) {
	mb := []vk.MemoryBarrier{{
		SType: vk.StructureTypeMemoryBarrier, SrcAccessMask: vk.AccessFlags(src), DstAccessMask: vk.AccessFlags(dst),
	}}
	vk.CmdPipelineBarrier(cb, vk.PipelineStageFlags(srcStage), vk.PipelineStageFlags(dstStage), 0, 1, mb, 0, nil, 0, nil)
}

// Commands is a primary command buffer of one queue and its fence.
type Commands struct {
	d     *Device
	q     *Queue
	cb    vk.CommandBuffer
	fence vk.Fence
}

// NewCommands makes commands for the compute queue.
func (d *Device) NewCommands() (*Commands, error) { return d.NewCommandsOn(d.Queue) }

// NewCommandsOn makes commands for q.
func (d *Device) NewCommandsOn(q *Queue) (*Commands, error) {
	c := &Commands{d: d, q: q}
	info := vk.CommandBufferAllocateInfo{
		SType: vk.StructureTypeCommandBufferAllocateInfo, CommandPool: q.pool,
		Level: vk.CommandBufferLevelPrimary, CommandBufferCount: 1,
	}
	cbs := make([]vk.CommandBuffer, 1)
	if r := vk.AllocateCommandBuffers(d.Dev, &info, cbs); r != vk.Success {
		return nil, fmt.Errorf("vulkan: vkAllocateCommandBuffers: %w", vk.Error(r))
	}
	c.cb = cbs[0]
	var f vk.Fence
	fi := vk.FenceCreateInfo{SType: vk.StructureTypeFenceCreateInfo}
	if r := vk.CreateFence(d.Dev, &fi, nil, &f); r != vk.Success {
		c.Release()
		return nil, fmt.Errorf("vulkan: vkCreateFence: %w", vk.Error(r))
	}
	c.fence = f
	return c, nil
}

// Release frees the command buffer, its pool and fence; safe on nil and twice.
func (c *Commands) Release() {
	if c == nil || c.d.Dev == nil {
		return
	}
	if c.fence != nil {
		vk.DestroyFence(c.d.Dev, c.fence, nil)
		c.fence = nil
	}
	if c.cb != nil {
		vk.FreeCommandBuffers(c.d.Dev, c.q.pool, 1, []vk.CommandBuffer{c.cb})
		c.cb = nil
	}
}

// Record (re)records the command buffer for repeated submission.
func (c *Commands) Record(fn func(cb vk.CommandBuffer)) error {
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

// Submit runs the recorded commands, waits, and returns the host time taken.
func (c *Commands) Submit() (time.Duration, error) {
	if err := c.ResetFence(); err != nil {
		return 0, err
	}
	start := time.Now()
	if err := c.Enqueue(); err != nil {
		return 0, err
	}
	if err := c.Wait(FenceBlock); err != nil {
		return 0, err
	}
	return time.Since(start), nil
}

// Issue submits the recorded commands and waits the way w says. Reset the
// fence first (ResetFence), so that timing Issue times the round trip alone.
func (c *Commands) Issue(w FenceWait) error {
	if err := c.Enqueue(); err != nil {
		return err
	}
	return c.Wait(w)
}

// ResetFence unsignals the fence before the next submission.
func (c *Commands) ResetFence() error {
	if r := vk.ResetFences(c.d.Dev, 1, []vk.Fence{c.fence}); r != vk.Success {
		return fmt.Errorf("vulkan: vkResetFences: %w", vk.Error(r))
	}
	return nil
}

// Enqueue submits the recorded commands, signalling the fence (reset it first).
func (c *Commands) Enqueue() error {
	if fn := c.d.submitFn; fn != nil {
		if r := submit(fn, c.q.q, c.cb, c.fence); r != vk.Success {
			return fmt.Errorf("vulkan: vkQueueSubmit: %w", vk.Error(r))
		}
		return nil
	}
	si := []vk.SubmitInfo{{SType: vk.StructureTypeSubmitInfo, CommandBufferCount: 1, PCommandBuffers: []vk.CommandBuffer{c.cb}}}
	if r := vk.QueueSubmit(c.q.q, 1, si, c.fence); r != vk.Success {
		return fmt.Errorf("vulkan: vkQueueSubmit: %w", vk.Error(r))
	}
	return nil
}

// FenceWait is how the host waits for a fence.
type FenceWait int

const (
	FenceBlock FenceWait = iota // vkWaitForFences
	FenceSpin                   // vkGetFenceStatus until signalled
)

// String names the way of waiting as host-link paths do.
func (w FenceWait) String() string {
	if w == FenceSpin {
		return "fence-spin"
	}
	return "fence-wait"
}

// Wait waits for the fence the way w says, at most fenceTimeout; on a
// timeout it waits for the device to go idle before returning the error.
func (c *Commands) Wait(w FenceWait) error {
	err := c.waitFence(w)
	if errors.Is(err, errNotSignalled) {
		vk.DeviceWaitIdle(c.d.Dev)
	}
	return err
}

var errNotSignalled = errors.New("fence not signalled")

func (c *Commands) waitFence(w FenceWait) error {
	if w == FenceSpin {
		return c.Spin()
	}
	switch r := vk.WaitForFences(c.d.Dev, 1, []vk.Fence{c.fence}, vk.True, fenceTimeout); r {
	case vk.Success:
		return nil
	case vk.Timeout:
		return fmt.Errorf("vulkan: vkWaitForFences: %w after %v", errNotSignalled, time.Duration(fenceTimeout))
	default:
		return fmt.Errorf("vulkan: vkWaitForFences: %w", vk.Error(r))
	}
}

// Spin polls the fence until it signals, for at most fenceTimeout.
func (c *Commands) Spin() error {
	start := time.Now()
	for i := 0; ; i++ {
		switch r := vk.GetFenceStatus(c.d.Dev, c.fence); r {
		case vk.Success:
			return nil
		case vk.NotReady:
			if i%1024 == 1023 && time.Since(start) > time.Duration(fenceTimeout) {
				return fmt.Errorf("vulkan: vkGetFenceStatus: %w after %v", errNotSignalled, time.Duration(fenceTimeout))
			}
		default:
			return fmt.Errorf("vulkan: vkGetFenceStatus: %w", vk.Error(r))
		}
	}
}

// submitOnce records fn into a fresh command buffer, runs it and waits.
func (d *Device) submitOnce(fn func(cb vk.CommandBuffer)) error {
	c, err := d.NewCommands()
	if err != nil {
		return err
	}
	defer c.Release()
	if err := c.Record(fn); err != nil {
		return err
	}
	_, err = c.Submit()
	return err
}

// Timer holds timestamp queries written between recorded commands; on a
// queue without timestamps durations come from the host clock.
type Timer struct {
	d     *Device
	Pool  vk.QueryPool // nil when the queue has no timestamps
	count uint32
	bits  uint32 // valid timestamp bits
	apart bool   // queries are reset on the compute queue (Prepare)
}

func (d *Device) newTimer(n uint32) (*Timer, error) { return d.NewTimerOn(d.Queue, n) }

// NewTimerOn makes a timer of n timestamp queries written on q.
func (d *Device) NewTimerOn(q *Queue, n uint32) (*Timer, error) {
	t := &Timer{d: d, count: n, bits: q.TsBits, apart: q != d.Queue}
	if q.TsBits == 0 || d.Info.TimestampPeriodNs <= 0 {
		return t, nil
	}
	info := vk.QueryPoolCreateInfo{SType: vk.StructureTypeQueryPoolCreateInfo, QueryType: vk.QueryTypeTimestamp, QueryCount: n}
	var qp vk.QueryPool
	if r := vk.CreateQueryPool(d.Dev, &info, nil, &qp); r != vk.Success {
		return nil, fmt.Errorf("vulkan: vkCreateQueryPool: %w", vk.Error(r))
	}
	t.Pool = qp
	return t, nil
}

// Release frees the query pool; safe on nil and twice.
func (t *Timer) Release() {
	if t != nil && t.Pool != nil && t.d.Dev != nil {
		vk.DestroyQueryPool(t.d.Dev, t.Pool, nil)
		t.Pool = nil
	}
}

// Method says how durations from this timer were measured.
func (t *Timer) Method() schema.TimingMethod {
	if t.Pool != nil {
		return schema.TimingGPUTimestamp
	}
	return schema.TimingQueueWallClock
}

// Reset records the reset of every query, before the first Stamp.
func (t *Timer) Reset(cb vk.CommandBuffer) {
	if t != nil && t.Pool != nil && !t.apart {
		vk.CmdResetQueryPool(cb, t.Pool, 0, t.count)
	}
}

// Prepare resets the queries of a transfer queue's timer on the compute
// queue and waits; call it before submitting the commands that stamp.
func (t *Timer) Prepare() error {
	if t == nil || t.Pool == nil || !t.apart {
		return nil
	}
	return t.d.submitOnce(func(cb vk.CommandBuffer) { vk.CmdResetQueryPool(cb, t.Pool, 0, t.count) })
}

// Stamp records timestamp i, written once earlier commands reach stage.
func (t *Timer) Stamp(cb vk.CommandBuffer, i uint32, stage vk.PipelineStageFlagBits) {
	if t != nil && t.Pool != nil {
		vk.CmdWriteTimestamp(cb, stage, t.Pool, i)
	}
}

// Intervals returns the n-1 GPU durations, in seconds, between timestamps
// 0…n-1. The timer must have a Pool.
func (t *Timer) Intervals(n uint32) ([]float64, error) {
	ts := make([]uint64, n)
	flags := vk.QueryResultFlags(vk.QueryResult64Bit | vk.QueryResultWaitBit)
	if r := vk.GetQueryPoolResults(t.d.Dev, t.Pool, 0, n, uint(8*n), unsafePointer(ts), 8, flags); r != vk.Success {
		return nil, fmt.Errorf("vulkan: vkGetQueryPoolResults: %w", vk.Error(r))
	}
	bits := t.bits
	mask := ^uint64(0)
	if bits < 64 {
		mask = 1<<bits - 1
	}
	out := make([]float64, n-1)
	for i := range out {
		out[i] = float64((ts[i+1]-ts[i])&mask) * t.d.Info.TimestampPeriodNs * 1e-9
	}
	return out, nil
}

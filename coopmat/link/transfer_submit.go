package link

import (
	"context"
	"encoding/binary"
	"fmt"
	"time"

	vulkan "github.com/everycycle/appraise/coopmat/vk"
	vk "github.com/vulkan-go/vulkan"
)

// submitter times round trips of a kernel counting its dispatches.
type submitter struct {
	d       *vulkan.Device
	counter *vulkan.Buffer // device-local word
	back    *vulkan.Buffer // mapped readback
	k       *vulkan.Kernel
	run     *vulkan.Commands
	read    *vulkan.Commands
	count   uint32
}

// counterKernel emits the kernel: binding 0's word 0 += 1, one invocation.
func counterKernel(version uint32) []uint32 {
	b := vulkan.NewBuilder(version)
	out, ptr := b.Storage(b.U32, 4)
	p := b.Elem(ptr, out, b.C(0))
	b.F.Store(p, b.AddC(b.F.Load(b.U32, p), 1))
	return b.Finish(1, 1, 1)
}

// measureSubmit fills res's EmptySubmit.
func measureSubmit(ctx context.Context, d *vulkan.Device, o TransferOptions, res *TransferResult) error {
	s := &submitter{d: d}
	defer s.release()
	if err := s.create(); err != nil {
		return err
	}
	var ms []latencyMethod
	for _, w := range dispatchCandidates() {
		ms = append(ms, latencyMethod{dispatchPathPrefix + w.String(), func() (float64, error) { return s.once(w) }})
	}
	o.progress("%s: empty dispatch round trip: %d paths", ProbeLaunch, len(ms))
	f, err := latencyFamily(ctx, ms, o, latencyTrial(o))
	if err != nil {
		return err
	}
	if err := s.check(o.tamper); err != nil {
		return err
	}
	res.EmptySubmit = f
	res.CheckedWords++
	return nil
}

func (s *submitter) create() error {
	var err error
	if s.counter, err = s.d.NewBuffer(4, false); err != nil {
		return err
	}
	if err := s.d.Upload(s.counter, make([]byte, 4)); err != nil {
		return err
	}
	if s.back, _, err = s.d.NewMappedBuffer(4, true); err != nil {
		return err
	}
	if s.k, err = s.d.NewKernel(counterKernel(vulkan.SpirvVersion(s.d.Info.API)), s.counter); err != nil {
		return err
	}
	if s.run, err = s.d.NewCommands(); err != nil {
		return err
	}
	err = s.run.Record(func(cb vk.CommandBuffer) {
		vulkan.MemoryBarrier(cb, vk.AccessShaderWriteBit|vk.AccessShaderReadBit|vk.AccessTransferWriteBit, vk.AccessShaderReadBit|vk.AccessShaderWriteBit,
			vk.PipelineStageComputeShaderBit|vk.PipelineStageTransferBit, vk.PipelineStageComputeShaderBit)
		s.k.Dispatch(cb, [3]uint32{1, 1, 1})
	})
	if err != nil {
		return err
	}
	if s.read, err = s.d.NewCommands(); err != nil {
		return err
	}
	return s.read.Record(func(cb vk.CommandBuffer) {
		vulkan.MemoryBarrier(cb, vk.AccessShaderWriteBit, vk.AccessTransferReadBit, vk.PipelineStageComputeShaderBit, vk.PipelineStageTransferBit)
		copyAfterTransfers(cb, s.counter, s.back, 0)
	})
}

func (s *submitter) release() {
	s.read.Release()
	s.run.Release()
	s.k.Release()
	s.back.Release()
	s.counter.Release()
}

// once times a dispatch's submit until its fence, waited for as w says.
func (s *submitter) once(w vulkan.FenceWait) (float64, error) {
	if err := s.run.ResetFence(); err != nil {
		return 0, err
	}
	start := time.Now()
	if err := s.run.Issue(w); err != nil {
		return 0, err
	}
	secs := time.Since(start).Seconds()
	s.count++
	return secs, nil
}

// check reads the counter back: it must equal the dispatches submitted.
func (s *submitter) check(tamper func(string, []byte)) error {
	if _, err := s.read.Submit(); err != nil {
		return fmt.Errorf("read back: %w", err)
	}
	got := s.back.Bytes()
	if tamper != nil {
		tamper("submit", got)
	}
	if n := binary.LittleEndian.Uint32(got); n != s.count {
		return fmt.Errorf("the kernel counted %d dispatches, %d were submitted: %w", n, s.count, vulkan.ErrCheckFailed)
	}
	return nil
}

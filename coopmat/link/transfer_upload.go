package link

import (
	"context"
	"errors"
	"fmt"
	"time"

	vulkan "github.com/everycycle/appraise/coopmat/vk"
	vk "github.com/vulkan-go/vulkan"
)

// uploadSlots is the device buffers the uploads rotate over; all are
// checked before any is written again.
const uploadSlots = 8

// uploader times pinned 1 MiB uploads on its candidates (uploadSpec).
type uploader struct {
	d      *vulkan.Device
	dsts   []*vulkan.Buffer // device-local destinations, one per slot
	back   *vulkan.Buffer   // mapped readback of every slot
	stage  *vulkan.Buffer   // host-cached staging
	kind   vulkan.HostMemory
	stream *stream // the kernel's pull, one pair per slot
	// copies[0] and copies[1] record stage → each slot by copy and kernel.
	copies [2][]*vulkan.Commands
	// mapped holds a device-mapped destination per slot (nil: no host write).
	mapped  *vulkan.Buffer
	writers *writers         // the pool of a host write of several writers
	read    *vulkan.Commands // every slot → back (mapped ones after the rest)
	src     []uint32         // the pattern of the current upload
	rounds  []upload         // what was uploaded into each slot since the last check
	round   uint32
	tamper  func(string, []byte)
	checked uint64
}

// measureUpload fills res's pinned 1 MiB upload figure.
func measureUpload(ctx context.Context, d *vulkan.Device, o TransferOptions, res *TransferResult) error {
	u := &uploader{d: d, tamper: o.tamper, src: make([]uint32, latencyUploadBytes/4)}
	defer u.release()
	ms, err := u.create(uploadCandidates(featuresOf(d, o)))
	if err != nil {
		return err
	}
	o.progress("%s: 1 MiB upload from pinned memory: %d paths", ProbeLaunch, len(ms))
	f, err := latencyFamily(ctx, ms, o, latencyTrial(o))
	if err != nil {
		return err
	}
	if err := u.check(); err != nil {
		return err
	}
	res.Upload1MiBPinned = f
	res.CheckedWords += u.checked
	return nil
}

// upload is a slot's round, and whether the host wrote it (mapped).
type upload struct {
	round  uint32
	mapped bool
}

// create makes the buffers and uploads of cs and returns their methods.
func (u *uploader) create(cs []uploadSpec) ([]latencyMethod, error) {
	for range uploadSlots {
		b, err := u.d.NewBuffer(latencyUploadBytes, false)
		if err != nil {
			return nil, err
		}
		u.dsts = append(u.dsts, b)
	}
	var err error
	if u.stage, u.kind, err = u.d.NewMappedBuffer(latencyUploadBytes, true); err != nil {
		return nil, err
	}
	var ms []latencyMethod
	for _, c := range cs {
		m, ok, err := u.add(c)
		if err != nil {
			return nil, err
		}
		if ok {
			ms = append(ms, m)
		}
	}
	backSlots := uint64(uploadSlots)
	if u.mapped != nil {
		backSlots *= 2
	}
	if u.back, _, err = u.d.NewMappedBuffer(backSlots*latencyUploadBytes, true); err != nil {
		return nil, err
	}
	if u.read, err = u.d.NewCommands(); err != nil {
		return nil, err
	}
	return ms, u.read.Record(func(cb vk.CommandBuffer) {
		for i, b := range u.dsts {
			copyAfterTransfers(cb, b, u.back, uint64(i)*latencyUploadBytes)
		}
		if u.mapped != nil {
			copyAfterTransfers(cb, u.mapped, u.back, uploadSlots*latencyUploadBytes)
		}
	})
}

// add prepares c's method; ok is false without room for its memory.
func (u *uploader) add(c uploadSpec) (m latencyMethod, ok bool, err error) {
	if c.writers > 0 {
		u.mapped, err = u.d.NewDeviceMappedBuffer(uploadSlots * latencyUploadBytes)
		if errors.Is(err, vulkan.ErrNoHostMemory) {
			return m, false, nil
		}
		if err != nil {
			return m, false, err
		}
		if c.writers > 1 {
			u.writers = newWriters(c.writers)
		}
		return latencyMethod{writePath(pinnedPathPrefix, c.writers), func() (float64, error) { return u.write(c.writers) }}, true, nil
	}
	r, i := route{q: u.d.Queue, shader: c.shader}, 0
	if c.copyQueue && u.d.CopyQ != nil {
		r.q = u.d.CopyQ
	}
	if c.shader {
		i = 1
		pairs := make([][]*vulkan.Buffer, len(u.dsts))
		for j, dst := range u.dsts {
			pairs[j] = []*vulkan.Buffer{u.stage, dst}
		}
		if u.stream, err = newStream(u.d, latencyUploadBytes, pairs); err != nil {
			return m, false, fmt.Errorf("stream kernel: %w", err)
		}
	}
	u.copies[i], err = u.recordUploads(r, u.stage, u.stream)
	path := pinnedPathPrefix + r.name(true) + "." + u.kind.Name() + "." + vulkan.FenceSpin.String()
	return latencyMethod{path, func() (float64, error) { return u.once(i) }}, true, err
}

// recordUploads records st → each slot on r; on error it returns what it made.
func (u *uploader) recordUploads(r route, st *vulkan.Buffer, s *stream) ([]*vulkan.Commands, error) {
	cs := make([]*vulkan.Commands, 0, uploadSlots)
	for i, dst := range u.dsts {
		c, err := u.d.NewCommandsOn(r.q)
		if err != nil {
			return cs, err
		}
		cs = append(cs, c)
		err = c.Record(func(cb vk.CommandBuffer) {
			if r.shader {
				s.move(cb, nil, i)
			} else {
				copyBare(cb, st, dst)
			}
		})
		if err != nil {
			return cs, err
		}
	}
	return cs, nil
}

// copyBare records a copy of all of src into dst and nothing else.
func copyBare(cb vk.CommandBuffer, src, dst *vulkan.Buffer) {
	vk.CmdCopyBuffer(cb, src.Buf, dst.Buf, 1, []vk.BufferCopy{{Size: vk.DeviceSize(src.Size())}})
}

// copyAfterTransfers records src → dst at offset, ordered as move is.
func copyAfterTransfers(cb vk.CommandBuffer, src, dst *vulkan.Buffer, offset uint64) {
	vulkan.MemoryBarrier(cb, vk.AccessTransferWriteBit|vk.AccessTransferReadBit, vk.AccessTransferReadBit|vk.AccessTransferWriteBit,
		vk.PipelineStageTransferBit, vk.PipelineStageTransferBit)
	vk.CmdCopyBuffer(cb, src.Buf, dst.Buf, 1, []vk.BufferCopy{{DstOffset: vk.DeviceSize(offset), Size: vk.DeviceSize(src.Size())}})
	vulkan.MemoryBarrier(cb, vk.AccessTransferWriteBit, vk.AccessHostReadBit|vk.AccessTransferReadBit,
		vk.PipelineStageTransferBit, vk.PipelineStageHostBit|vk.PipelineStageTransferBit)
}

func (u *uploader) release() {
	u.read.Release()
	for _, cs := range u.copies {
		for _, c := range cs {
			c.Release()
		}
	}
	u.stream.release()
	u.stage.Release()
	u.writers.close()
	u.mapped.Release()
	u.back.Release()
	for _, b := range u.dsts {
		b.Release()
	}
}

// once stages a fresh pattern (untimed), then times upload i (0: copy,
// 1: kernel) into the next slot until its fence, spinning.
func (u *uploader) once(i int) (float64, error) {
	u.round++
	fillPattern(u.src, u.round)
	copy(u.stage.Words(), u.src)
	c := u.copies[i][len(u.rounds)]
	if err := c.ResetFence(); err != nil {
		return 0, err
	}
	start := time.Now()
	if err := c.Issue(vulkan.FenceSpin); err != nil {
		return 0, err
	}
	secs := time.Since(start).Seconds()
	return secs, u.uploaded(upload{round: u.round})
}

// write times parts writers' stores into the next slot until read back.
func (u *uploader) write(parts int) (float64, error) {
	u.round++
	fillPattern(u.src, u.round)
	slot := len(u.rounds)
	dst := u.mapped.Words()[slot*latencyUploadBytes/4 : (slot+1)*latencyUploadBytes/4]
	w := u.writers
	if parts > 1 {
		w.arm()
		defer w.disarm()
	}
	start := time.Now()
	var err error
	if parts > 1 {
		err = w.write(dst, u.src)
	} else {
		err = writeMapped(dst, u.src, 1)
	}
	if err != nil {
		return 0, err
	}
	secs := time.Since(start).Seconds()
	return secs, u.uploaded(upload{round: u.round, mapped: true})
}

// uploaded records an upload; once every slot holds one, all are checked.
func (u *uploader) uploaded(up upload) error {
	u.rounds = append(u.rounds, up)
	if len(u.rounds) == uploadSlots {
		return u.check()
	}
	return nil
}

func (u *uploader) check() error {
	if len(u.rounds) == 0 {
		return nil
	}
	if _, err := u.read.Submit(); err != nil {
		return fmt.Errorf("read back: %w", err)
	}
	words := u.back.Words()
	for s, up := range u.rounds {
		at := s
		if up.mapped {
			at += uploadSlots
		}
		if u.tamper != nil {
			u.tamper("upload", u.back.Bytes()[at*latencyUploadBytes:(at+1)*latencyUploadBytes])
		}
		if err := checkPattern(words[at*latencyUploadBytes/4:(at+1)*latencyUploadBytes/4], up.round); err != nil {
			return fmt.Errorf("upload %d: %w", up.round, err)
		}
		u.checked += latencyUploadBytes / 4
	}
	u.rounds = u.rounds[:0]
	return nil
}

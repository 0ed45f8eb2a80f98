//go:build explore

package linkpaths

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	vulkan "github.com/everycycle/appraise/coopmat/vk"
	vk "github.com/vulkan-go/vulkan"
)

// uploadSlots is how many device buffers the 1 MiB uploads rotate over:
// a group of uploads runs back to back, then every one of them is read back
// and checked, before any of those buffers is written again.
const uploadSlots = 8

// uploader times 1 MiB uploads from each kind of mapped staging memory on
// each route.
type uploader struct {
	d       *vulkan.Device
	routes  []route
	dsts    []*vulkan.Buffer // device-local destinations, one per slot
	back    *vulkan.Buffer   // mapped readback of every slot
	stages  []*vulkan.Buffer // mapped staging buffers, one per memory kind
	kinds   []vulkan.HostMemory
	streams []*stream              // the stream kernel of each stage, one pair per slot
	copies  [][][]*vulkan.Commands // [route][kind][slot]: stage → slot, pre-recorded
	// mapped holds a device-mapped destination per slot, one after the
	// other, for the host-write route (nil when the device has none).
	mapped  *vulkan.Buffer
	writers map[int]*writers // pools for host writes of more than one writer
	read    *vulkan.Commands // every slot → back (mapped ones after the rest)
	src     []uint32         // the pattern of the current upload
	rounds  []upload         // what was uploaded into each slot since the last check
	round   uint32
	tamper  func(string, []byte)
	checked uint64
}

// askedMethods are the methods of ms whose path o asks for: all of them
// without Only, else the one named want (none when ms lacks it).
func (o TransferOptions) askedMethods(ms []latencyMethod, want string) []latencyMethod {
	if o.Only == nil {
		return ms
	}
	return slices.DeleteFunc(ms, func(m latencyMethod) bool { return m.path != want })
}

// measureUpload fills res's 1 MiB upload figures and paths.
func measureUpload(ctx context.Context, d *vulkan.Device, o TransferOptions, res *TransferResult) error {
	u := &uploader{d: d, routes: routes(d), tamper: o.tamper, src: make([]uint32, latencyUploadBytes/4)}
	defer u.release()
	if err := u.create(); err != nil {
		return err
	}
	var want TransferPaths
	if o.Only != nil {
		want = *o.Only
	}
	ms := o.askedMethods(u.methods(false), want.Upload)
	o.progress("1 MiB upload: %d paths", len(ms))
	m, st, err := fastestLatency(ctx, ms, o)
	if err != nil {
		return err
	}
	res.Upload1MiB, res.UploadPath = st, m.path
	ms = o.askedMethods(u.methods(true), want.UploadPinned)
	o.progress("1 MiB upload from pinned memory: %d paths", len(ms))
	if m, st, err = fastestLatency(ctx, ms, o); err != nil {
		return fmt.Errorf("pinned: %w", err)
	}
	res.Upload1MiBPinned, res.UploadPinnedPath = st, m.path
	if err := u.check(); err != nil {
		return err
	}
	res.CheckedWords += u.checked
	return nil
}

// upload is what once uploaded into a slot: its round, and whether the
// host wrote it into the slot's device-mapped destination.
type upload struct {
	round  uint32
	mapped bool
}

// methods are the uploads on each route from each staging memory, waited
// for each way, and host writes of each count of writers.
func (u *uploader) methods(pinned bool) []latencyMethod {
	prefix := uploadPathPrefix
	if pinned {
		prefix = pinnedPathPrefix
	}
	var ms []latencyMethod
	for ri, r := range u.routes {
		for i, k := range u.kinds {
			for _, w := range []vulkan.FenceWait{vulkan.FenceBlock, vulkan.FenceSpin} {
				ms = append(ms, latencyMethod{prefix + r.name(true) + "." + k.Name() + "." + w.String(),
					func() (float64, error) { return u.once(ri, i, w, pinned) }})
			}
		}
	}
	if u.mapped != nil {
		for _, n := range writerCounts() {
			ms = append(ms, latencyMethod{writePath(prefix, n), func() (float64, error) { return u.write(n) }})
		}
	}
	return ms
}

// create makes the buffers and records the copies: a staging buffer of
// each host memory kind the device has (cached; uncached where it differs;
// imported where the device imports host memory).
func (u *uploader) create() error {
	for range uploadSlots {
		b, err := u.d.NewBuffer(latencyUploadBytes, false)
		if err != nil {
			return err
		}
		u.dsts = append(u.dsts, b)
	}
	var err error
	u.mapped, err = u.d.NewDeviceMappedBuffer(uploadSlots * latencyUploadBytes)
	if err != nil && !errors.Is(err, vulkan.ErrNoHostMemory) {
		return err
	}
	backSlots := uint64(uploadSlots)
	if u.mapped != nil {
		backSlots *= 2
		u.writers = map[int]*writers{}
		for _, n := range writerCounts() {
			if n > 1 {
				u.writers[n] = newWriters(n)
			}
		}
	}
	if u.back, _, err = u.d.NewMappedBuffer(backSlots*latencyUploadBytes, true); err != nil {
		return err
	}
	for _, k := range vulkan.HostKinds {
		if err := u.addStage(k); err != nil {
			return err
		}
	}
	if u.read, err = u.d.NewCommands(); err != nil {
		return err
	}
	return u.read.Record(func(cb vk.CommandBuffer) {
		for i, b := range u.dsts {
			copyAfterTransfers(cb, b, u.back, uint64(i)*latencyUploadBytes)
		}
		if u.mapped != nil {
			copyAfterTransfers(cb, u.mapped, u.back, uploadSlots*latencyUploadBytes)
		}
	})
}

// addStage adds a staging buffer of host memory of kind hk, unless the
// device has none or it is memory already added, and records its uploads
// on every route.
func (u *uploader) addStage(hk vulkan.HostKind) error {
	st, k, err := u.d.NewHostBuffer(latencyUploadBytes, hk)
	if errors.Is(err, vulkan.ErrNoHostMemory) {
		return nil
	}
	if err != nil {
		return err
	}
	if slices.Contains(u.kinds, k) {
		st.Release()
		return nil
	}
	u.stages, u.kinds = append(u.stages, st), append(u.kinds, k)
	pairs := make([][]*vulkan.Buffer, len(u.dsts))
	for i, dst := range u.dsts {
		pairs[i] = []*vulkan.Buffer{st, dst}
	}
	s, err := newStream(u.d, latencyUploadBytes, pairs)
	if err != nil {
		return fmt.Errorf("stream kernel: %w", err)
	}
	u.streams = append(u.streams, s)
	if u.copies == nil {
		u.copies = make([][][]*vulkan.Commands, len(u.routes))
	}
	for ri, r := range u.routes {
		cs, err := u.recordUploads(r, st, s)
		u.copies[ri] = append(u.copies[ri], cs) // released with u, even on error
		if err != nil {
			return err
		}
	}
	return nil
}

// recordUploads records the upload of st into each slot on route r (for
// the kernel, through s); on error it returns the commands made so far.
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
				copyAfterTransfers(cb, st, dst, 0)
			}
		})
		if err != nil {
			return cs, err
		}
	}
	return cs, nil
}

// copyAfterTransfers records a copy of all of src into dst at offset, after
// every earlier transfer, visible to the host and later transfers.
func copyAfterTransfers(cb vk.CommandBuffer, src, dst *vulkan.Buffer, offset uint64) {
	vulkan.MemoryBarrier(cb, vk.AccessTransferWriteBit|vk.AccessTransferReadBit, vk.AccessTransferReadBit|vk.AccessTransferWriteBit,
		vk.PipelineStageTransferBit, vk.PipelineStageTransferBit)
	vk.CmdCopyBuffer(cb, src.Buf, dst.Buf, 1, []vk.BufferCopy{{DstOffset: vk.DeviceSize(offset), Size: vk.DeviceSize(src.Size())}})
	vulkan.MemoryBarrier(cb, vk.AccessTransferWriteBit, vk.AccessHostReadBit|vk.AccessTransferReadBit,
		vk.PipelineStageTransferBit, vk.PipelineStageHostBit|vk.PipelineStageTransferBit)
}

func (u *uploader) release() {
	u.read.Release()
	for _, byKind := range u.copies {
		for _, cs := range byKind {
			for _, c := range cs {
				c.Release()
			}
		}
	}
	for _, s := range u.streams {
		s.release()
	}
	for _, b := range u.stages {
		b.Release()
	}
	for _, w := range u.writers {
		w.close()
	}
	u.mapped.Release()
	u.back.Release()
	for _, b := range u.dsts {
		b.Release()
	}
}

// once makes a fresh pattern (untimed), then times its copy into staging
// buffer i, the submit of the recorded upload into the next free slot on
// route ri and the wait w. When pinned, the copy into the staging buffer is done before
// the clock starts. Once every slot holds an upload, all are checked.
func (u *uploader) once(ri, i int, w vulkan.FenceWait, pinned bool) (float64, error) {
	u.round++
	fillPattern(u.src, u.round)
	stage, slot := u.stages[i].Words(), len(u.rounds)
	if pinned {
		copy(stage, u.src)
	}
	start := time.Now()
	if !pinned {
		copy(stage, u.src)
	}
	if err := u.copies[ri][i][slot].Issue(w); err != nil {
		return 0, err
	}
	secs := time.Since(start).Seconds()
	return secs, u.uploaded(upload{round: u.round})
}

// write makes a fresh pattern and, for several writers, arms their pool
// (untimed), then times the stores by parts writers into the next free
// slot's device-mapped destination, until each writer has read its last
// word back.
func (u *uploader) write(parts int) (float64, error) {
	u.round++
	fillPattern(u.src, u.round)
	slot := len(u.rounds)
	dst := u.mapped.Words()[slot*latencyUploadBytes/4 : (slot+1)*latencyUploadBytes/4]
	w := u.writers[parts]
	if w != nil {
		w.arm()
		defer w.disarm()
	}
	start := time.Now()
	var err error
	if w != nil {
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

// uploaded records an upload into the next slot; once every slot holds
// one, all are checked.
func (u *uploader) uploaded(up upload) error {
	u.rounds = append(u.rounds, up)
	if len(u.rounds) == uploadSlots {
		return u.check()
	}
	return nil
}

// check reads every slot back and compares each upload since the last
// check with its pattern.
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

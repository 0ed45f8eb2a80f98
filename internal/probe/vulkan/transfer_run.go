package vulkan

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"time"

	vk "github.com/vulkan-go/vulkan"

	"github.com/everycycle/appraise/internal/measure/stats"
	"github.com/everycycle/appraise/schema"
)

// hostType picks a HOST_VISIBLE|HOST_COHERENT memory type allowed by bits:
// one that is not device-local when any is (system memory, so that a copy
// crosses the host link), then one whose HOST_CACHED flag is cached.
func (d *Device) hostType(bits uint32, cached bool) (hostMemory, bool) {
	want := vk.MemoryPropertyFlags(vk.MemoryPropertyHostVisibleBit | vk.MemoryPropertyHostCoherentBit)
	best, score := hostMemory{}, -1
	for i := uint32(0); i < d.memory.MemoryTypeCount; i++ {
		flags := d.memory.MemoryTypes[i].PropertyFlags
		if bits&(1<<i) == 0 || flags&want != want {
			continue
		}
		isCached := flags&vk.MemoryPropertyFlags(vk.MemoryPropertyHostCachedBit) != 0
		s := 0
		if flags&vk.MemoryPropertyFlags(vk.MemoryPropertyDeviceLocalBit) == 0 {
			s += 2
		}
		if isCached == cached {
			s++
		}
		if s > score {
			best, score = hostMemory{index: i, cached: isCached}, s
		}
	}
	return best, score >= 0
}

// newMappedBuffer creates a persistently mapped host buffer of size bytes
// in the memory type hostType picks. Release it before the Device.
func (d *Device) newMappedBuffer(size uint64, cached bool) (*Buffer, hostMemory, error) {
	b := &Buffer{d: d, size: size}
	m, err := b.createMapped(cached)
	if err != nil {
		b.Release()
		return nil, hostMemory{}, err
	}
	return b, m, nil
}

// createMapped is (*Buffer).create for a host buffer whose memory type is
// chosen by hostType.
func (b *Buffer) createMapped(cached bool) (hostMemory, error) {
	var m hostMemory
	err := b.allocate(hostUsage, func(bits uint32) (uint32, error) {
		var ok bool
		if m, ok = b.d.hostType(bits, cached); !ok {
			return 0, fmt.Errorf("vulkan: no host-visible, coherent memory type for buffer")
		}
		return m.index, nil
	}, true, nil)
	return m, err
}

// latencyMethod is one way of doing a timed operation: once does it, checks
// it and returns its host wall-clock seconds.
type latencyMethod struct {
	path string
	once func() (float64, error)
}

// Trial of the latency methods: warm discarded and runs timed rounds of
// each, round robin so that drift in the machine hits them alike.
const (
	latencyTrialWarm      = 5
	latencyTrialRuns      = 21
	latencyTrialQuickRuns = 7
)

// fastestLatency tries every method (when there is more than one) and
// samples the one with the lowest median: latencyWarm discarded runs, then n timed ones. The trial and the
// samples each follow o.Warmup of sustained runs (round robin over the
// methods, then of the chosen one), as every probe does: a GPU idling
// between probes runs short operations at low clocks. (On an H200 it did
// not shorten the 1 MiB upload, 69–76 µs without it and 71–82 µs with it:
// there the time is in the copy itself, 46–51 µs by GPU timestamps.)
func fastestLatency(ctx context.Context, ms []latencyMethod, o TransferOptions) (latencyMethod, schema.Stat, error) {
	runs, n := latencyTrialRuns, latencySamples
	if o.Quick {
		runs, n = latencyTrialQuickRuns, latencyQuickSamples
	}
	switch len(ms) {
	case 0:
		return latencyMethod{}, schema.Stat{}, errors.New("no path to measure")
	case 1:
		st, err := sampleLatency(ctx, ms[0], o.warmup(), n)
		return ms[0], st, err
	}
	fns := make([]func() (float64, error), len(ms))
	for i, m := range ms {
		fns[i] = func() (float64, error) { return runLatency(ctx, m) }
	}
	best, err := fastestOf(ctx, fns, o.warmup(), latencyTrialWarm, runs)
	if err != nil {
		return latencyMethod{}, schema.Stat{}, err
	}
	st, err := sampleLatency(ctx, ms[best], o.warmup(), n)
	return ms[best], st, err
}

// fastestOf is a timed trial of fns, each of which does one thing and
// returns its seconds: warmup's worth of them round robin, then warm + runs
// rounds of each, round robin so that drift in the machine hits them
// alike, the first warm rounds discarded. It returns the index of the one
// with the lowest median.
func fastestOf(ctx context.Context, fns []func() (float64, error), warmup time.Duration, warm, runs int) (int, error) {
	next := 0
	err := warmUp(ctx, warmup, func() error {
		_, err := fns[next%len(fns)]()
		next++
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("warm-up: %w", err)
	}
	times := make([][]float64, len(fns))
	for r := range warm + runs {
		for i, fn := range fns {
			if err := ctx.Err(); err != nil {
				return 0, err
			}
			t, err := fn()
			if err != nil {
				return 0, err
			}
			if r >= warm {
				times[i] = append(times[i], t)
			}
		}
	}
	best := 0
	for i := range times {
		if stats.Median(times[i]) < stats.Median(times[best]) {
			best = i
		}
	}
	return best, nil
}

// sampleLatency runs m for warmup and latencyWarm more times, then n
// timed times.
func sampleLatency(ctx context.Context, m latencyMethod, warmup time.Duration, n int) (schema.Stat, error) {
	err := warmUp(ctx, warmup, func() error { _, err := runLatency(ctx, m); return err })
	if err != nil {
		return schema.Stat{}, fmt.Errorf("warm-up: %w", err)
	}
	secs := make([]float64, 0, n)
	for i := range latencyWarm + n {
		t, err := runLatency(ctx, m)
		if err != nil {
			return schema.Stat{}, err
		}
		if i >= latencyWarm {
			secs = append(secs, t)
		}
	}
	return stats.Summarize(secs)
}

func runLatency(ctx context.Context, m latencyMethod) (float64, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	t, err := m.once()
	if err != nil {
		return 0, fmt.Errorf("%s: %w", m.path, err)
	}
	return t, nil
}

// uploadSlots is how many device buffers the 1 MiB uploads rotate over:
// a group of uploads runs back to back, then every one of them is read back
// and checked, before any of those buffers is written again.
const uploadSlots = 8

// uploader times 1 MiB uploads from each kind of mapped staging memory on
// each route.
type uploader struct {
	d       *Device
	routes  []route
	dsts    []*Buffer // device-local destinations, one per slot
	back    *Buffer   // mapped readback of every slot
	stages  []*Buffer // mapped staging buffers, one per memory kind
	kinds   []hostMemory
	streams []*stream       // the stream kernel of each stage, one pair per slot
	copies  [][][]*commands // [route][kind][slot]: stage → slot, pre-recorded
	// mapped holds a device-mapped destination per slot, one after the
	// other, for the host-write route (nil when the device has none).
	mapped  *Buffer
	writers map[int]*writers // pools for host writes of more than one writer
	read    *commands        // every slot → back (mapped ones after the rest)
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
func (d *Device) measureUpload(ctx context.Context, o TransferOptions, res *TransferResult) error {
	u := &uploader{d: d, routes: d.routes(), tamper: o.tamper, src: make([]uint32, latencyUploadBytes/4)}
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
			for _, w := range []fenceWait{fenceBlock, fenceSpin} {
				ms = append(ms, latencyMethod{prefix + r.name(true) + "." + k.name() + "." + w.String(),
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
	u.mapped, err = u.d.newDeviceMappedBuffer(uploadSlots * latencyUploadBytes)
	if err != nil && !errors.Is(err, errNoHostMemory) {
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
	if u.back, _, err = u.d.newMappedBuffer(backSlots*latencyUploadBytes, true); err != nil {
		return err
	}
	for _, k := range hostKinds {
		if err := u.addStage(k); err != nil {
			return err
		}
	}
	if u.read, err = u.d.newCommands(); err != nil {
		return err
	}
	return u.read.record(func(cb vk.CommandBuffer) {
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
func (u *uploader) addStage(hk hostKind) error {
	st, k, err := u.d.newHostBuffer(latencyUploadBytes, hk)
	if errors.Is(err, errNoHostMemory) {
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
	pairs := make([][]*Buffer, len(u.dsts))
	for i, dst := range u.dsts {
		pairs[i] = []*Buffer{st, dst}
	}
	s, err := u.d.newStream(latencyUploadBytes, pairs)
	if err != nil {
		return fmt.Errorf("stream kernel: %w", err)
	}
	u.streams = append(u.streams, s)
	if u.copies == nil {
		u.copies = make([][][]*commands, len(u.routes))
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
func (u *uploader) recordUploads(r route, st *Buffer, s *stream) ([]*commands, error) {
	cs := make([]*commands, 0, uploadSlots)
	for i, dst := range u.dsts {
		c, err := u.d.newCommandsOn(r.q)
		if err != nil {
			return cs, err
		}
		cs = append(cs, c)
		err = c.record(func(cb vk.CommandBuffer) {
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
func copyAfterTransfers(cb vk.CommandBuffer, src, dst *Buffer, offset uint64) {
	memoryBarrier(cb, vk.AccessTransferWriteBit|vk.AccessTransferReadBit, vk.AccessTransferReadBit|vk.AccessTransferWriteBit,
		vk.PipelineStageTransferBit, vk.PipelineStageTransferBit)
	vk.CmdCopyBuffer(cb, src.buf, dst.buf, 1, []vk.BufferCopy{{DstOffset: vk.DeviceSize(offset), Size: vk.DeviceSize(src.size)}})
	memoryBarrier(cb, vk.AccessTransferWriteBit, vk.AccessHostReadBit|vk.AccessTransferReadBit,
		vk.PipelineStageTransferBit, vk.PipelineStageHostBit|vk.PipelineStageTransferBit)
}

func (u *uploader) release() {
	u.read.release()
	for _, byKind := range u.copies {
		for _, cs := range byKind {
			for _, c := range cs {
				c.release()
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
func (u *uploader) once(ri, i int, w fenceWait, pinned bool) (float64, error) {
	u.round++
	fillPattern(u.src, u.round)
	stage, slot := u.stages[i].words(), len(u.rounds)
	if pinned {
		copy(stage, u.src)
	}
	start := time.Now()
	if !pinned {
		copy(stage, u.src)
	}
	if err := u.copies[ri][i][slot].issue(w); err != nil {
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
	dst := u.mapped.words()[slot*latencyUploadBytes/4 : (slot+1)*latencyUploadBytes/4]
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
	if _, err := u.read.submit(); err != nil {
		return fmt.Errorf("read back: %w", err)
	}
	words := u.back.words()
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

// submitter times round trips of a one-invocation kernel that adds one to
// a counter word, so that the count read back at the end confirms every
// dispatch ran.
type submitter struct {
	d       *Device
	counter *Buffer // device-local word
	back    *Buffer // mapped readback
	k       *Kernel
	run     *commands
	read    *commands
	count   uint32
}

// counterKernel emits the kernel: binding 0's word 0 += 1, one invocation.
func counterKernel(version uint32) []uint32 {
	b := newBuilder(version)
	out, ptr := b.storage(b.u32, 4)
	p := b.elem(ptr, out, b.c(0))
	b.f.Store(p, b.addC(b.f.Load(b.u32, p), 1))
	return b.finish(1, 1, 1)
}

// measureSubmit fills res's EmptySubmit and SubmitPath.
func (d *Device) measureSubmit(ctx context.Context, o TransferOptions, res *TransferResult) error {
	s := &submitter{d: d}
	defer s.release()
	if err := s.create(); err != nil {
		return err
	}
	var ms []latencyMethod
	for _, w := range []fenceWait{fenceBlock, fenceSpin} {
		ms = append(ms, latencyMethod{dispatchPathPrefix + w.String(), func() (float64, error) { return s.once(w) }})
	}
	if o.Only != nil {
		ms = o.askedMethods(ms, o.Only.Submit)
	}
	o.progress("empty dispatch round trip: %d paths", len(ms))
	m, st, err := fastestLatency(ctx, ms, o)
	if err != nil {
		return err
	}
	if err := s.check(o.tamper); err != nil {
		return err
	}
	res.EmptySubmit, res.SubmitPath = st, m.path
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
	if s.back, _, err = s.d.newMappedBuffer(4, true); err != nil {
		return err
	}
	if s.k, err = s.d.NewKernel(counterKernel(spirvVersion(s.d.Info.apiVersion)), s.counter); err != nil {
		return err
	}
	if s.run, err = s.d.newCommands(); err != nil {
		return err
	}
	err = s.run.record(func(cb vk.CommandBuffer) {
		memoryBarrier(cb, vk.AccessShaderWriteBit|vk.AccessShaderReadBit|vk.AccessTransferWriteBit, vk.AccessShaderReadBit|vk.AccessShaderWriteBit,
			vk.PipelineStageComputeShaderBit|vk.PipelineStageTransferBit, vk.PipelineStageComputeShaderBit)
		s.k.dispatch(cb, [3]uint32{1, 1, 1})
	})
	if err != nil {
		return err
	}
	if s.read, err = s.d.newCommands(); err != nil {
		return err
	}
	return s.read.record(func(cb vk.CommandBuffer) {
		memoryBarrier(cb, vk.AccessShaderWriteBit, vk.AccessTransferReadBit, vk.PipelineStageComputeShaderBit, vk.PipelineStageTransferBit)
		copyAfterTransfers(cb, s.counter, s.back, 0)
	})
}

func (s *submitter) release() {
	s.read.release()
	s.run.release()
	s.k.Release()
	s.back.Release()
	s.counter.Release()
}

// once times the submit of the recorded dispatch until its fence, waited
// for the way w says.
func (s *submitter) once(w fenceWait) (float64, error) {
	start := time.Now()
	if err := s.run.issue(w); err != nil {
		return 0, err
	}
	secs := time.Since(start).Seconds()
	s.count++
	return secs, nil
}

// check reads the counter back: it must equal the dispatches submitted.
func (s *submitter) check(tamper func(string, []byte)) error {
	if _, err := s.read.submit(); err != nil {
		return fmt.Errorf("read back: %w", err)
	}
	got := s.back.Bytes()
	if tamper != nil {
		tamper("submit", got)
	}
	if n := binary.LittleEndian.Uint32(got); n != s.count {
		return fmt.Errorf("the kernel counted %d dispatches, %d were submitted: %w", n, s.count, ErrCheckFailed)
	}
	return nil
}

package gpu

import (
	"context"
	"encoding/binary"
	"fmt"
	"time"

	"github.com/cogentcore/webgpu/wgpu"
)

type integrityRun struct {
	d         *Device
	plan      integrityPlan
	opts      IntegrityOptions
	maxPerDim uint32

	ks      *kernelSet
	held    []*wgpu.Buffer // taken from opts.Held; also in buffers
	buffers []*wgpu.Buffer
	bgs     []*wgpu.BindGroup
	chunks  []integrityChunk
	step    *wgpu.Buffer
	status  *wgpu.Buffer
	staging *wgpu.Buffer
	faults  *wgpu.Buffer // nil without the injection hook
}

func integrityKernels() []string { return []string{"fill", "verify", "corrupt"} }

type integrityChunk struct {
	n                     uint64 // vec4 elements
	fill, verify, corrupt dispatch
}

// release is safe on a partial run.
func (r *integrityRun) release() {
	for _, bg := range r.bgs {
		bg.Release()
	}
	r.bgs = nil
	for _, b := range r.buffers {
		b.Release()
	}
	r.buffers = nil
	if r.ks != nil {
		r.ks.release()
		r.ks = nil
	}
}

func (r *integrityRun) keep(b *wgpu.Buffer, err error) (*wgpu.Buffer, error) {
	if err == nil {
		r.buffers = append(r.buffers, b)
	}
	return b, err
}

func (r *integrityRun) statusBytes() uint64 {
	return 4 * (integrityCounts + integrityPerChunk*uint64(r.plan.chunks()))
}

func (r *integrityRun) setup() error {
	var err error
	if r.ks, err = r.d.compile("integrity", integrityKernels()...); err != nil {
		return err
	}
	if r.step, err = r.keep(r.d.newBuffer("integrity-step", integrityStepBytes, wgpu.BufferUsageUniform|wgpu.BufferUsageCopyDst)); err != nil {
		return err
	}
	if r.status, err = r.keep(r.d.storageBuffer("integrity-status", r.statusBytes())); err != nil {
		return err
	}
	if r.staging, err = r.keep(r.d.newBuffer("integrity-staging", r.statusBytes(), wgpu.BufferUsageMapRead|wgpu.BufferUsageCopyDst)); err != nil {
		return err
	}
	if r.opts.inject != nil {
		if r.faults, err = r.keep(r.d.storageBuffer("integrity-faults", (integrityMaxFaults+1)*16)); err != nil {
			return err
		}
	}
	for c := 0; c < r.plan.chunks(); c++ {
		if err := r.addChunk(c); err != nil {
			return fmt.Errorf("integrity: chunk %d of %d (%d bytes): %w", c, r.plan.chunks(), r.plan.chunkSize(c), err)
		}
	}
	return r.d.alive()
}

func (r *integrityRun) addChunk(c int) error {
	pc := r.plan.pieces[c]
	n := pc.size / integrityElement
	mem, err := r.chunkBuffer(pc)
	if err != nil {
		return err
	}
	at := map[uint32]boundRange{2: {pc.offset, pc.size}}
	groups := integrityGroups(n)
	params, err := r.keep(r.d.uniformBuffer("integrity-chunk-params", chunkParams(c, n, groups)))
	if err != nil {
		return err
	}
	x, y, err := grid(groups, r.maxPerDim)
	if err != nil {
		return err
	}
	ch := integrityChunk{n: n}
	if ch.fill, err = r.bind("fill", x, y, at, binding{0, params}, binding{1, r.step}, binding{2, mem}); err != nil {
		return err
	}
	if ch.verify, err = r.bind("verify", x, y, at, binding{0, params}, binding{1, r.step}, binding{2, mem}, binding{3, r.status}); err != nil {
		return err
	}
	if r.faults != nil {
		if ch.corrupt, err = r.bind("corrupt", 1, 1, at, binding{0, params}, binding{2, mem}, binding{4, r.faults}); err != nil {
			return err
		}
	}
	r.chunks = append(r.chunks, ch)
	return nil
}

func (r *integrityRun) chunkBuffer(pc integrityPiece) (*wgpu.Buffer, error) {
	if pc.held >= 0 {
		return r.held[pc.held], nil
	}
	return r.keep(r.d.storageBuffer("integrity-chunk", pc.size))
}

func (r *integrityRun) bind(entry string, x, y uint32, at map[uint32]boundRange, bs ...binding) (dispatch, error) {
	k := r.ks.kernels[entry]
	bg, err := r.d.bindGroupAt(k, at, bs...)
	if err != nil {
		return dispatch{}, err
	}
	r.bgs = append(r.bgs, bg)
	return dispatch{k: k, bg: bg, x: x, y: y}, nil
}

func chunkParams(c int, n uint64, groups uint32) []byte {
	b := make([]byte, integrityChunkBytes)
	binary.LittleEndian.PutUint32(b[0:], uint32(c))
	binary.LittleEndian.PutUint32(b[4:], uint32(n))
	binary.LittleEndian.PutUint32(b[8:], groups)
	return b
}

func stepParams(kind, seed uint32, s integrityStep) []byte {
	var invert, descending, rewrite uint32
	if s.invert {
		invert = 0xFFFFFFFF
	}
	if s.descending {
		descending = 1
	}
	if s.rewrite {
		rewrite = 1
	}
	b := make([]byte, integrityStepBytes)
	for i, v := range []uint32{kind, seed, invert, descending, rewrite} {
		binary.LittleEndian.PutUint32(b[4*i:], v)
	}
	return b
}

// prepare fills the chunks until the device has been busy for warmUp.
func (r *integrityRun) prepare(ctx context.Context) error {
	r.d.progress("integrity: filling %d chunks (%d MiB) to warm up", len(r.chunks), r.plan.total>>20)
	if err := r.d.upload(r.step, 0, stepParams(patAddress, 0, integrityStep{})); err != nil {
		return err
	}
	ds := r.stepDispatches(integrityStep{})
	start, dur := time.Now(), r.d.warmUpTime(warmUp)
	for first := true; first || time.Since(start) < dur; first = false {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := r.d.run(func(enc *wgpu.CommandEncoder) error { return record(enc, ds, 1) }); err != nil {
			return err
		}
	}
	return nil
}

func (r *integrityRun) stepDispatches(s integrityStep) []dispatch {
	ds := make([]dispatch, len(r.chunks))
	for i, ch := range r.chunks {
		if s.descending {
			i = len(r.chunks) - 1 - i
		}
		ds[i] = ch.fill
		if s.verify {
			ds[i] = ch.verify
		}
	}
	return ds
}

func (r *integrityRun) runStep(kind, seed uint32, s integrityStep) (integrityStatus, error) {
	if err := r.d.upload(r.step, 0, stepParams(kind, seed, s)); err != nil {
		return integrityStatus{}, err
	}
	ds := r.stepDispatches(s)
	if !s.verify {
		return integrityStatus{}, r.d.run(func(enc *wgpu.CommandEncoder) error { return record(enc, ds, 1) })
	}
	size := r.statusBytes()
	err := r.d.run(func(enc *wgpu.CommandEncoder) error {
		if err := enc.ClearBuffer(r.status, 0, size); err != nil {
			return fmt.Errorf("webgpu: ClearBuffer: %w", err)
		}
		if err := record(enc, ds, 1); err != nil {
			return err
		}
		return copyBuffer(enc, r.status, 0, r.staging, size)
	})
	if err != nil {
		return integrityStatus{}, err
	}
	var st integrityStatus
	err = r.d.mapRead(r.staging, size, func(b []byte) error {
		st = parseStatus(b, len(r.chunks))
		return nil
	})
	return st, err
}

func (r *integrityRun) inject(pattern string) error {
	fs := r.opts.inject(pattern)
	if len(fs) == 0 {
		return nil
	}
	b, err := r.faultList(fs)
	if err != nil {
		return err
	}
	if err := r.d.upload(r.faults, 0, b); err != nil {
		return err
	}
	ds := make([]dispatch, len(r.chunks))
	for i, ch := range r.chunks {
		ds[i] = ch.corrupt
	}
	return r.d.run(func(enc *wgpu.CommandEncoder) error { return record(enc, ds, 1) })
}

func (r *integrityRun) faultList(fs []integrityFault) ([]byte, error) {
	if len(fs) > integrityMaxFaults {
		return nil, fmt.Errorf("gpu: integrity: %d faults to inject, at most %d", len(fs), integrityMaxFaults)
	}
	b := make([]byte, (integrityMaxFaults+1)*16)
	binary.LittleEndian.PutUint32(b, uint32(len(fs)))
	for i, f := range fs {
		if f.Chunk < 0 || f.Chunk >= len(r.chunks) || f.Word >= 4*r.chunks[f.Chunk].n {
			return nil, fmt.Errorf("gpu: integrity: fault %+v outside the region", f)
		}
		e := b[16*(i+1):]
		binary.LittleEndian.PutUint32(e[0:], uint32(f.Chunk))
		binary.LittleEndian.PutUint32(e[4:], uint32(f.Word))
		binary.LittleEndian.PutUint32(e[8:], f.Flip)
	}
	return b, nil
}

package gpu

import (
	"fmt"

	"github.com/cogentcore/webgpu/wgpu"
)

// stagingChunk is the most bytes read back through one staging buffer.
const stagingChunk = 64 << 20

func (d *Device) newBuffer(label string, size uint64, usage wgpu.BufferUsage) (*wgpu.Buffer, error) {
	if err := d.alive(); err != nil {
		return nil, err
	}
	if size > d.limits.MaxBufferBytes {
		return nil, fmt.Errorf("gpu: buffer %q of %d bytes exceeds the device's max buffer size %d", label, size, d.limits.MaxBufferBytes)
	}
	b, err := d.dev.CreateBuffer(&wgpu.BufferDescriptor{Label: label, Size: size, Usage: usage})
	if err = typedRefusal(err); err != nil {
		return nil, fmt.Errorf("webgpu: CreateBuffer %q (%d bytes): %w", label, size, err)
	}
	return b, nil
}

func (d *Device) storageBuffer(label string, size uint64) (*wgpu.Buffer, error) {
	return d.newBuffer(label, size, wgpu.BufferUsageStorage|wgpu.BufferUsageCopySrc|wgpu.BufferUsageCopyDst)
}

func (d *Device) uniformBuffer(label string, data []byte) (*wgpu.Buffer, error) {
	b, err := d.newBuffer(label, uint64(len(data)), wgpu.BufferUsageUniform|wgpu.BufferUsageCopyDst)
	if err != nil {
		return nil, err
	}
	if err := d.upload(b, 0, data); err != nil {
		b.Release()
		return nil, err
	}
	return b, nil
}

// upload's write takes effect at the next submit.
func (d *Device) upload(b *wgpu.Buffer, offset uint64, data []byte) error {
	if err := d.queue.WriteBuffer(b, offset, data); err != nil {
		return fmt.Errorf("webgpu: WriteBuffer (%d bytes): %w", len(data), err)
	}
	return nil
}

// submitWait submits cmds (none flushes uploads) and waits for them.
func (d *Device) submitWait(cmds ...*wgpu.CommandBuffer) error {
	if err := d.alive(); err != nil {
		return err
	}
	d.queue.Submit(cmds...)
	done, err := d.workDone()
	if err != nil {
		return err
	}
	_, err = d.await(done)
	return err
}

func (d *Device) encoder() (*wgpu.CommandEncoder, error) {
	if err := d.alive(); err != nil {
		return nil, err
	}
	enc, err := d.dev.CreateCommandEncoder(nil)
	if err != nil {
		return nil, fmt.Errorf("webgpu: CreateCommandEncoder: %w", err)
	}
	return enc, nil
}

func finish(enc *wgpu.CommandEncoder) (*wgpu.CommandBuffer, error) {
	cb, err := enc.Finish(nil)
	if err != nil {
		return nil, fmt.Errorf("webgpu: CommandEncoder.Finish: %w", err)
	}
	return cb, nil
}

func (d *Device) run(rec func(enc *wgpu.CommandEncoder) error) error {
	enc, err := d.encoder()
	if err != nil {
		return err
	}
	defer enc.Release()
	if err := rec(enc); err != nil {
		return err
	}
	cb, err := finish(enc)
	if err != nil {
		return err
	}
	defer cb.Release()
	return d.submitWait(cb)
}

// readBack calls visit with each chunk of src, valid during the call, and
// its offset; size is a multiple of 4.
func (d *Device) readBack(src *wgpu.Buffer, size uint64, visit func(offset uint64, chunk []byte) error) error {
	return d.readRange(src, 0, size, stagingChunk, visit)
}

// readRange is readBack from start in chunks of maxChunk, multiples of 4.
func (d *Device) readRange(src *wgpu.Buffer, start, size, maxChunk uint64, visit func(offset uint64, chunk []byte) error) error {
	chunk := min(size, maxChunk)
	staging, err := d.newBuffer("staging", chunk, wgpu.BufferUsageMapRead|wgpu.BufferUsageCopyDst)
	if err != nil {
		return err
	}
	defer staging.Release()
	for off := start; off < start+size; off += chunk {
		n := min(chunk, start+size-off)
		err := d.run(func(enc *wgpu.CommandEncoder) error {
			return copyBuffer(enc, src, off, staging, n)
		})
		if err != nil {
			return err
		}
		if err := d.mapRead(staging, n, func(b []byte) error { return visit(off, b) }); err != nil {
			return err
		}
	}
	return nil
}

func copyBuffer(enc *wgpu.CommandEncoder, src *wgpu.Buffer, off uint64, dst *wgpu.Buffer, n uint64) error {
	if err := enc.CopyBufferToBuffer(src, off, dst, 0, n); err != nil {
		return fmt.Errorf("webgpu: CopyBufferToBuffer (%d bytes): %w", n, err)
	}
	return nil
}

func (d *Device) mapRead(b *wgpu.Buffer, n uint64, use func([]byte) error) error {
	if err := d.mapWait(b, wgpu.MapModeRead, n); err != nil {
		return err
	}
	useErr := use(b.GetMappedRange(0, uint(n)))
	if err := unmap(b); err != nil {
		return err
	}
	return useErr
}

// mapWait maps b's first n bytes; the caller unmaps b.
func (d *Device) mapWait(b *wgpu.Buffer, mode wgpu.MapMode, n uint64) error {
	mapped, err := d.mapAsync(b, mode, n)
	if err != nil {
		return err
	}
	st, err := d.await(mapped)
	if err == nil && st != mapSucceeded {
		err = fmt.Errorf("webgpu: Buffer.MapAsync (%d bytes): status %v", n, wgpu.BufferMapAsyncStatus(st))
	}
	return err
}

func unmap(b *wgpu.Buffer) error {
	if err := b.Unmap(); err != nil {
		return fmt.Errorf("webgpu: Buffer.Unmap: %w", err)
	}
	return nil
}

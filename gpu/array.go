package gpu

import (
	"encoding/binary"
	"fmt"

	"github.com/cogentcore/webgpu/wgpu"
)

// Array is a device buffer the host writes and reads. Release it before its
// Device; it is not safe for concurrent use.
type Array struct {
	d    *Device
	buf  *wgpu.Buffer
	size uint64
}

// NewArray creates an array of size bytes, a positive multiple of 4.
func (d *Device) NewArray(size uint64) (*Array, error) {
	if size == 0 || size%4 != 0 {
		return nil, fmt.Errorf("gpu: array of %d bytes: want a positive multiple of 4", size)
	}
	if size > d.memLimit {
		return nil, fmt.Errorf("gpu: array of %d bytes exceeds the memory limit of %d bytes", size, d.memLimit)
	}
	b, err := d.storageBuffer("array", size)
	if err != nil {
		return nil, err
	}
	return &Array{d: d, buf: b, size: size}, nil
}

// Size is the array's size in bytes.
func (a *Array) Size() uint64 { return a.size }

func (a *Array) checkRange(off, n uint64) error {
	if a.buf == nil {
		return fmt.Errorf("gpu: array used after Release")
	}
	if off%4 != 0 || n%4 != 0 || off > a.size || n > a.size-off {
		return fmt.Errorf("gpu: %d bytes at offset %d of a %d-byte array: want 4-byte aligned and in range", n, off, a.size)
	}
	return nil
}

// Write copies p into the array at off and returns once the device has it.
// off and len(p) must be multiples of 4.
func (a *Array) Write(off uint64, p []byte) error {
	if err := a.checkRange(off, uint64(len(p))); err != nil {
		return err
	}
	if len(p) == 0 {
		return nil
	}
	if err := a.d.upload(a.buf, off, p); err != nil {
		return err
	}
	return a.d.submitWait()
}

// Read copies len(p) bytes of the array at off into p, as Write.
func (a *Array) Read(p []byte, off uint64) error {
	n := uint64(len(p))
	if err := a.checkRange(off, n); err != nil {
		return err
	}
	if n == 0 {
		return nil
	}
	return a.d.readRange(a.buf, off, n, stagingChunk, func(at uint64, b []byte) error {
		copy(p[at-off:], b)
		return nil
	})
}

// Fill sets every 32-bit word of the array to word, little-endian.
func (a *Array) Fill(word uint32) error {
	if err := a.checkRange(0, a.size); err != nil {
		return err
	}
	block := make([]byte, min(a.size, stagingChunk))
	for i := 0; i < len(block); i += 4 {
		binary.LittleEndian.PutUint32(block[i:], word)
	}
	for off := uint64(0); off < a.size; off += uint64(len(block)) {
		n := min(uint64(len(block)), a.size-off)
		if err := a.Write(off, block[:n]); err != nil {
			return err
		}
	}
	return nil
}

// Release frees the array. Safe to call twice.
func (a *Array) Release() {
	if a != nil && a.buf != nil {
		a.buf.Release()
		a.buf = nil
	}
}

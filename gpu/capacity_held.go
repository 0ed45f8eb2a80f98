package gpu

import (
	"errors"
	"fmt"

	"github.com/cogentcore/webgpu/wgpu"
)

// HeldMemory is device memory the capacity probe allocated, cleared and
// kept, so that the memtest tests it in place instead of allocating as
// much again: on a large device, allocating and releasing most of its
// memory costs seconds each time. The zero value holds nothing.
//
// The caller makes one per device and gives it first to MeasureCapacity
// (CapacityOptions.Hold), which leaves its chunks in it instead of
// releasing them, then to MeasureIntegrity (IntegrityOptions.Held), which
// takes the chunks it tests (and releases them when it is done) and
// releases the others before it allocates anything. The caller releases
// it once both have run: that frees whatever a path that stopped between
// them left held, and nothing otherwise.
type HeldMemory struct {
	d     *Device
	bufs  []*wgpu.Buffer // in the order capacity allocated them
	sizes []uint64       // bytes of each
}

// Release frees every chunk still held. Like every buffer release it
// takes effect as the device gets to it; safe twice and on nil.
func (h *HeldMemory) Release() {
	if h == nil {
		return
	}
	for _, b := range h.bufs {
		b.Release()
	}
	h.d, h.bufs, h.sizes = nil, nil, nil
}

// hold takes over bufs, of the given sizes, allocated on d.
func (h *HeldMemory) hold(d *Device, bufs []*wgpu.Buffer, sizes []uint64) error {
	if len(h.bufs) > 0 {
		return errors.New("gpu: memory held already")
	}
	h.d, h.bufs, h.sizes = d, bufs, sizes
	return nil
}

// sizesOn is the sizes of the chunks held, in order, or an error when they
// were allocated on a device other than d.
func (h *HeldMemory) sizesOn(d *Device) ([]uint64, error) {
	if h == nil || len(h.bufs) == 0 {
		return nil, nil
	}
	if h.d != d {
		return nil, fmt.Errorf("gpu: memory held on %s, not on %s", h.d.info.DisplayName(), d.info.DisplayName())
	}
	return h.sizes, nil
}

// take hands the first n chunks to the caller, who releases them, and
// releases the others, waiting until the device has let them go so that
// what the caller allocates next has their room. The chunks are the
// caller's even when the wait fails.
func (h *HeldMemory) take(n int) ([]*wgpu.Buffer, error) {
	if h == nil || len(h.bufs) == 0 {
		return nil, nil
	}
	d := h.d
	n = min(n, len(h.bufs))
	kept := h.bufs[:n:n]
	h.bufs = h.bufs[n:]
	released := len(h.bufs) > 0
	h.Release()
	if released {
		if err := d.submitWait(); err != nil {
			return kept, fmt.Errorf("gpu: releasing the memory the memtest does not test: %w", err)
		}
	}
	return kept, nil
}

package gpu

import (
	"errors"
	"fmt"

	"github.com/cogentcore/webgpu/wgpu"
)

// HeldMemory is memory MeasureCapacity kept (CapacityOptions.Hold) for
// MeasureIntegrity to test in place (IntegrityOptions.Held); release it once
// both have run. The zero value holds nothing.
type HeldMemory struct {
	d     *Device
	bufs  []*wgpu.Buffer // in the order capacity allocated them
	sizes []uint64
}

// Release frees every chunk still held. Safe twice and on nil.
func (h *HeldMemory) Release() {
	if h == nil {
		return
	}
	for _, b := range h.bufs {
		b.Release()
	}
	h.d, h.bufs, h.sizes = nil, nil, nil
}

func (h *HeldMemory) hold(d *Device, bufs []*wgpu.Buffer, sizes []uint64) error {
	if len(h.bufs) > 0 {
		return errors.New("gpu: memory held already")
	}
	h.d, h.bufs, h.sizes = d, bufs, sizes
	return nil
}

// sizesOn fails when the chunks held are not d's.
func (h *HeldMemory) sizesOn(d *Device) ([]uint64, error) {
	if h == nil || len(h.bufs) == 0 {
		return nil, nil
	}
	if h.d != d {
		return nil, fmt.Errorf("gpu: memory held on %s, not on %s", h.d.info.DisplayName(), d.info.DisplayName())
	}
	return h.sizes, nil
}

// take hands the first n chunks to the caller, even on error, and releases
// the others, waiting for the device.
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

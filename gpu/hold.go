package gpu

import (
	"fmt"

	"github.com/cogentcore/webgpu/wgpu"
)

// Hold allocates size bytes of device-local memory on d and clears it, so
// that it is resident, and returns a function that releases it, safe
// twice. A caller watching which device's memory use rises learns which
// physical device stands behind an adapter.
func Hold(d *Device, size uint64) (release func(), err error) {
	if err := d.alive(); err != nil {
		return nil, err
	}
	b, err := d.scopedBuffer("hold", size, wgpu.BufferUsageStorage|wgpu.BufferUsageCopyDst)
	if err != nil {
		return nil, err
	}
	err = d.run(func(enc *wgpu.CommandEncoder) error {
		if err := enc.ClearBuffer(b, 0, size); err != nil {
			return fmt.Errorf("webgpu: ClearBuffer (%d bytes): %w", size, err)
		}
		return nil
	})
	if err != nil {
		b.Release()
		return nil, err
	}
	released := false
	return func() {
		if !released {
			released = true
			b.Destroy()
			b.Release()
		}
	}, nil
}

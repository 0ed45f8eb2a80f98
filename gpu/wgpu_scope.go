package gpu

// #include "wgpu_gap.h"
import "C"

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"unsafe"

	"github.com/cogentcore/webgpu/wgpu"
)

// ErrOutOfMemory is wrapped by errors that report the device (or the host,
// for host-visible memory) out of memory; the device stays usable.
var ErrOutOfMemory = errors.New("gpu: out of memory")

// wgpuOutOfMemory is how wgpu words DeviceError::OutOfMemory.
const wgpuOutOfMemory = "Not enough memory left"

// typedRefusal wraps ErrOutOfMemory around CreateBuffer's error where it is
// wgpu's refusal, which the binding reports as untyped text.
func typedRefusal(err error) error {
	if err != nil && strings.Contains(err.Error(), wgpuOutOfMemory) {
		return fmt.Errorf("%w: %w", ErrOutOfMemory, err)
	}
	return err
}

// scopedBuffer creates a buffer inside error scopes, so that a refusal
// wraps ErrOutOfMemory and leaves the device usable. The caller releases
// it.
func (d *Device) scopedBuffer(label string, size uint64, usage wgpu.BufferUsage) (*wgpu.Buffer, error) {
	var b *wgpu.Buffer
	var createErr error
	err := d.scoped(func() {
		b, createErr = d.dev.CreateBuffer(&wgpu.BufferDescriptor{Label: label, Size: size, Usage: usage})
	})
	if err == nil {
		err = typedRefusal(createErr)
	}
	if err != nil {
		if b != nil {
			b.Release()
		}
		return nil, fmt.Errorf("webgpu: CreateBuffer %s (%d bytes): %w", label, size, err)
	}
	return b, nil
}

// scoped runs f, whose WebGPU calls must be on d, inside an out-of-memory
// and a validation error scope, so that its errors come back here rather
// than spoil the device. An out-of-memory error wraps ErrOutOfMemory.
func (d *Device) scoped(f func()) error {
	if err := d.alive(); err != nil {
		return err
	}
	rec := (*C.appraiseScoped)(C.calloc(1, C.size_t(unsafe.Sizeof(C.appraiseScoped{}))))
	defer C.free(unsafe.Pointer(rec))
	dev := deviceHandle(d.dev)
	C.appraisePushScopes(dev)
	f()
	C.appraisePopScopes(dev, rec)
	switch rec._type {
	case 0: // WGPUErrorType_NoError
		return nil
	case 2: // WGPUErrorType_OutOfMemory
		return fmt.Errorf("%w: %s", ErrOutOfMemory, C.GoString(&rec.msg[0]))
	default:
		return fmt.Errorf("webgpu: error of type %d: %s", rec._type, C.GoString(&rec.msg[0]))
	}
}

// notice is a callback wgpu-native makes from inside a later poll, recorded
// in C memory. An unseen notice may still be written, so it stays
// allocated.
type notice struct {
	c *C.appraiseNotice
}

func newNotice() *notice {
	return &notice{c: (*C.appraiseNotice)(C.calloc(1, C.size_t(unsafe.Sizeof(C.appraiseNotice{}))))}
}

// seen reports whether the callback has run. Callbacks run on the polling
// thread, so none writes while this reads.
func (n *notice) seen() bool { return n.c.seen != 0 }

// status is the status the callback passed (0 is success).
func (n *notice) status() uint32 { return uint32(n.c.status) }

// free releases a seen notice.
func (n *notice) free() {
	if n.c != nil && n.seen() {
		C.free(unsafe.Pointer(n.c))
		n.c = nil
	}
}

// refOf returns the C handle the binding keeps in the field "ref" of *p,
// after checking that the field is a bare handle.
func refOf[T any](p *T) (unsafe.Pointer, error) {
	f, ok := reflect.TypeFor[T]().FieldByName("ref")
	if !ok || f.Type.Size() != handleSize || f.Type.Kind() != reflect.Pointer {
		return nil, fmt.Errorf("gpu: the webgpu binding's %v no longer keeps its handle in a field ref", reflect.TypeFor[T]())
	}
	return *(*unsafe.Pointer)(unsafe.Add(unsafe.Pointer(p), f.Offset)), nil
}

// mapAsync asks for the first n bytes of b to be mapped in mode once the
// work that uses b is done, and returns the notice of the outcome.
func (d *Device) mapAsync(b *wgpu.Buffer, mode wgpu.MapMode, n uint64) (*notice, error) {
	ref, err := refOf(b)
	if err != nil {
		return nil, err
	}
	nt := newNotice()
	if err := d.scoped(func() {
		C.appraiseMapAsync(C.WGPUBuffer(ref), C.uint32_t(mode), 0, C.size_t(n), nt.c)
	}); err != nil {
		nt.free()
		return nil, fmt.Errorf("webgpu: wgpuBufferMapAsync (%d bytes): %w", n, err)
	}
	return nt, nil
}

// workDone returns a notice seen once everything submitted so far has
// finished.
func (d *Device) workDone() (*notice, error) {
	ref, err := refOf(d.queue)
	if err != nil {
		return nil, err
	}
	nt := newNotice()
	C.appraiseOnWorkDone(C.WGPUQueue(ref), nt.c)
	return nt, nil
}

package gpu

// Error scopes and deferred callbacks (buffer mappings, queue work done),
// made from C (wgpu_gap.c) where the binding's own calls would hand C
// pointers into Go memory or let errors reach the uncaptured path.

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
// for host-visible memory) out of memory: a clean refusal, after which the
// device stays usable.
var ErrOutOfMemory = errors.New("gpu: out of memory")

// wgpuOutOfMemory is how wgpu words a device's out-of-memory error
// (DeviceError::OutOfMemory).
const wgpuOutOfMemory = "Not enough memory left"

// typedRefusal is err from the Go binding's CreateBuffer, wrapping
// ErrOutOfMemory where it is wgpu's refusal: the binding reports every
// error of its own callback as untyped text. Every buffer is created
// through it (newBuffer, scopedBuffer).
func typedRefusal(err error) error {
	if err != nil && strings.Contains(err.Error(), wgpuOutOfMemory) {
		return fmt.Errorf("%w: %w", ErrOutOfMemory, err)
	}
	return err
}

// scopedBuffer creates a buffer inside error scopes, so that the
// driver's refusal comes back as ErrOutOfMemory and leaves the device
// usable. The caller releases it.
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
// and a validation error scope, so that errors f causes come back here
// instead of through the uncaptured-error path (which would spoil the
// device for every later probe). It returns an error wrapping
// ErrOutOfMemory for an out-of-memory error, another error for any other
// error f caused, or nil. wgpu-native reports a scope's error at the pop,
// synchronously; the C record lives in C memory for that call.
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

// notice is a callback wgpu-native will make from inside a later poll,
// recorded in C memory (appraiseNotice). Free it only once it was seen: an
// abandoned notice may still be written, so it is left allocated.
type notice struct {
	c *C.appraiseNotice
}

// newNotice allocates an unseen notice.
func newNotice() *notice {
	return &notice{c: (*C.appraiseNotice)(C.calloc(1, C.size_t(unsafe.Sizeof(C.appraiseNotice{}))))}
}

// seen reports whether the callback has run. Callbacks run inside
// wgpuDevicePoll on the polling thread, so no other thread writes it while
// this reads.
func (n *notice) seen() bool { return n.c.seen != 0 }

// status is the status the callback passed (0 is success for both kinds).
func (n *notice) status() uint32 { return uint32(n.c.status) }

// free releases a seen notice; an unseen one is left for C to write.
func (n *notice) free() {
	if n.c != nil && n.seen() {
		C.free(unsafe.Pointer(n.c))
		n.c = nil
	}
}

// refOf returns the C handle the binding keeps in the field "ref" of the
// struct *p of type T (wgpu.Buffer, wgpu.Queue: a device handle, then the
// object's own), after checking that the field is a bare handle.
func refOf[T any](p *T) (unsafe.Pointer, error) {
	f, ok := reflect.TypeFor[T]().FieldByName("ref")
	if !ok || f.Type.Size() != handleSize || f.Type.Kind() != reflect.Pointer {
		return nil, fmt.Errorf("gpu: the webgpu binding's %v no longer keeps its handle in a field ref", reflect.TypeFor[T]())
	}
	return *(*unsafe.Pointer)(unsafe.Add(unsafe.Pointer(p), f.Offset)), nil
}

// mapAsync asks for the first n bytes of b to be mapped in mode once the
// work that uses b is done, and returns the notice of the outcome. It
// replaces the binding's Buffer.MapAsync, which hands C a pointer into Go
// memory that C keeps past the call (the collector may free it before the
// callback reads it).
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

// workDone returns a notice that is seen once everything submitted to
// the queue so far has finished, as the device's fence reports it.
func (d *Device) workDone() (*notice, error) {
	ref, err := refOf(d.queue)
	if err != nil {
		return nil, err
	}
	nt := newNotice()
	C.appraiseOnWorkDone(C.WGPUQueue(ref), nt.c)
	return nt, nil
}

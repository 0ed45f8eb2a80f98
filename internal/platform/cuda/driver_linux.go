//go:build linux && cgo

package cuda

/*
#cgo LDFLAGS: -ldl
#include <stdlib.h>
#include "cudaapi.h"
*/
import "C"

import (
	"errors"
	"fmt"
	"unsafe"
)

// Driver is a loaded CUDA driver library.
type Driver struct{ api *C.cu_api }

// Context, Stream and Event are the driver's opaque handles.
type (
	Context struct{ p C.CUcontext }
	Stream  struct{ p C.CUstream }
	Event   struct{ p C.CUevent }
)

// Pointer is the stream's handle, for a library that enqueues work on it.
func (s Stream) Pointer() unsafe.Pointer { return unsafe.Pointer(s.p) }

// Valid says whether the handle was made.
func (c Context) Valid() bool { return c.p != nil }

// Valid says whether the handle was made.
func (s Stream) Valid() bool { return s.p != nil }

// Valid says whether the handle was made.
func (e Event) Valid() bool { return e.p != nil }

// Open loads the driver library at path ("" means DefaultLibrary), resolves
// its entry points and runs cuInit; a library that does not load is a
// *LoadError. Errors name the failing call and wrap an *Error.
func Open(path string) (*Driver, error) {
	if path == "" {
		path = DefaultLibrary
	}
	api := C.cu_new()
	if api == nil {
		return nil, errors.New("out of memory")
	}
	p := C.CString(path)
	defer C.free(unsafe.Pointer(p))
	if msg := C.cu_open(api, p); msg != nil {
		err := &LoadError{Path: path, Msg: C.GoString(msg)}
		C.cu_close(api)
		return nil, err
	}
	d := &Driver{api: api}
	if err := d.call("cuInit", C.cu_init(api)); err != nil {
		d.Close()
		return nil, err
	}
	return d, nil
}

// Close unloads the library; safe to call twice.
func (d *Driver) Close() error {
	if d.api != nil {
		C.cu_close(d.api)
		d.api = nil
	}
	return nil
}

func (d *Driver) call(name string, r C.CUresult) error {
	if r == 0 {
		return nil
	}
	return fmt.Errorf("%s: %w", name, &Error{Code: int(r), Name: C.GoString(C.cu_errname(d.api, r))})
}

// Count is the number of CUDA devices.
func (d *Driver) Count() (int, error) {
	var n C.int
	err := d.call("cuDeviceGetCount", C.cu_count(d.api, &n))
	return int(n), err
}

// Device is the device of ordinal i.
func (d *Driver) Device(i int) (Device, error) {
	var dev C.CUdevice
	err := d.call("cuDeviceGet", C.cu_device(d.api, &dev, C.int(i)))
	return Device(dev), err
}

// BusID is dev's PCI bus address as CUDA writes it ("0000:3B:00.0").
func (d *Driver) BusID(dev Device) (string, error) {
	var buf [64]C.char
	if err := d.call("cuDeviceGetPCIBusId", C.cu_busid(d.api, &buf[0], C.int(len(buf)), C.CUdevice(dev))); err != nil {
		return "", err
	}
	return C.GoString(&buf[0]), nil
}

// Name is dev's name.
func (d *Driver) Name(dev Device) (string, error) {
	var buf [256]C.char
	if err := d.call("cuDeviceGetName", C.cu_name(d.api, &buf[0], C.int(len(buf)), C.CUdevice(dev))); err != nil {
		return "", err
	}
	return C.GoString(&buf[0]), nil
}

// CanAccessPeer says whether a may access b's memory.
func (d *Driver) CanAccessPeer(a, b Device) (bool, error) {
	var ok C.int
	err := d.call("cuDeviceCanAccessPeer", C.cu_can(d.api, &ok, C.CUdevice(a), C.CUdevice(b)))
	return ok != 0, err
}

// Retain retains dev's primary context.
func (d *Driver) Retain(dev Device) (Context, error) {
	var c C.CUcontext
	err := d.call("cuDevicePrimaryCtxRetain", C.cu_retain(d.api, &c, C.CUdevice(dev)))
	return Context{c}, err
}

// Release releases dev's primary context.
func (d *Driver) Release(dev Device) error {
	return d.call("cuDevicePrimaryCtxRelease", C.cu_release(d.api, C.CUdevice(dev)))
}

// SetCurrent makes c current on the calling thread; the zero Context unsets it.
func (d *Driver) SetCurrent(c Context) error {
	return d.call("cuCtxSetCurrent", C.cu_current(d.api, c.p))
}

// Sync waits for the current context's work.
func (d *Driver) Sync() error { return d.call("cuCtxSynchronize", C.cu_sync(d.api)) }

// ErrPeerAccessAlreadyEnabled is the Code of EnablePeer's *Error when access
// was already enabled.
const ErrPeerAccessAlreadyEnabled = 704

// EnablePeer lets the current context access peer's memory.
func (d *Driver) EnablePeer(peer Context) error {
	return d.call("cuCtxEnablePeerAccess", C.cu_enable(d.api, peer.p))
}

// DisablePeer undoes EnablePeer.
func (d *Driver) DisablePeer(peer Context) error {
	return d.call("cuCtxDisablePeerAccess", C.cu_disable(d.api, peer.p))
}

// Alloc allocates n bytes in the current context.
func (d *Driver) Alloc(n uint64) (Ptr, error) {
	var p C.CUdeviceptr
	if err := d.call(fmt.Sprintf("cuMemAlloc(%d bytes)", n), C.cu_alloc(d.api, &p, C.size_t(n))); err != nil {
		return 0, err
	}
	return Ptr(p), nil
}

// Free releases memory from Alloc.
func (d *Driver) Free(p Ptr) error { return d.call("cuMemFree", C.cu_free(d.api, C.CUdeviceptr(p))) }

// HtoD copies b to p; it returns once the copy has read b.
func (d *Driver) HtoD(p Ptr, b []byte) error {
	return d.call("cuMemcpyHtoD", C.cu_htod(d.api, C.CUdeviceptr(p), unsafe.Pointer(unsafe.SliceData(b)), C.size_t(len(b))))
}

// DtoH copies len(b) bytes from p into b.
func (d *Driver) DtoH(b []byte, p Ptr) error {
	return d.call("cuMemcpyDtoH", C.cu_dtoh(d.api, unsafe.Pointer(unsafe.SliceData(b)), C.CUdeviceptr(p), C.size_t(len(b))))
}

// MemsetD32 sets n 32-bit words at p to w.
func (d *Driver) MemsetD32(p Ptr, w uint32, n uint64) error {
	return d.call("cuMemsetD32", C.cu_memset32(d.api, C.CUdeviceptr(p), C.uint(w), C.size_t(n)))
}

// PeerCopyAsync enqueues on s a copy of n bytes from src in srcCtx to dst in dstCtx.
func (d *Driver) PeerCopyAsync(dst Ptr, dstCtx Context, src Ptr, srcCtx Context, n uint64, s Stream) error {
	return d.call("cuMemcpyPeerAsync", C.cu_peercopy(d.api, C.CUdeviceptr(dst), dstCtx.p, C.CUdeviceptr(src), srcCtx.p, C.size_t(n), s.p))
}

// NewStream creates a non-blocking stream in the current context.
func (d *Driver) NewStream() (Stream, error) {
	var s C.CUstream
	err := d.call("cuStreamCreate", C.cu_stream(d.api, &s))
	return Stream{s}, err
}

// DestroyStream destroys s.
func (d *Driver) DestroyStream(s Stream) error {
	return d.call("cuStreamDestroy", C.cu_stream_destroy(d.api, s.p))
}

// NewEvent creates a timing event in the current context.
func (d *Driver) NewEvent() (Event, error) {
	var e C.CUevent
	err := d.call("cuEventCreate", C.cu_event(d.api, &e))
	return Event{e}, err
}

// DestroyEvent destroys e.
func (d *Driver) DestroyEvent(e Event) error {
	return d.call("cuEventDestroy", C.cu_event_destroy(d.api, e.p))
}

// Record enqueues e on s.
func (d *Driver) Record(e Event, s Stream) error {
	return d.call("cuEventRecord", C.cu_record(d.api, e.p, s.p))
}

// WaitEvent waits until e has happened.
func (d *Driver) WaitEvent(e Event) error {
	return d.call("cuEventSynchronize", C.cu_event_sync(d.api, e.p))
}

// Elapsed is the time from start to stop, in seconds.
func (d *Driver) Elapsed(start, stop Event) (float64, error) {
	var ms C.float
	if err := d.call("cuEventElapsedTime", C.cu_elapsed(d.api, &ms, start.p, stop.p)); err != nil {
		return 0, err
	}
	return float64(ms) / 1e3, nil
}

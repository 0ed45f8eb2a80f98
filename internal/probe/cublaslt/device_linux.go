//go:build linux && cgo

package cublaslt

/*
#include "ltapi.h"
*/
import "C"

import (
	"errors"
	"fmt"
	"unsafe"

	"github.com/everycycle/appraise/internal/platform/pci"
)

// device is one CUDA device opened for the probe: its primary context
// (current on the calling OS thread, which the caller locks), one stream,
// a start and a stop event, a cuBLASLt handle and the workspace.
type device struct {
	l        *Library
	dev      C.CUdevice
	ctx      C.CUcontext
	retained bool
	stream   C.CUstream
	ev       [2]C.CUevent
	handle   C.cublasLtHandle_t
	ws       C.CUdeviceptr
	wsBytes  uint64
	busID    string
	name     string
}

// findDevice returns the CUDA device at busID (any form pci.ParseBDF
// takes); "" means device 0. The bus address is returned normalised.
func (l *Library) findDevice(busID string) (C.CUdevice, string, error) {
	var want string
	if busID != "" {
		b, err := pci.ParseBDF(busID)
		if err != nil {
			return 0, "", fmt.Errorf("cublaslt: bus id: %w", err)
		}
		want = b.String()
	}
	var n C.int
	if err := l.cu("cuDeviceGetCount", C.lt_cu_count(l.api, &n)); err != nil {
		return 0, "", err
	}
	var seen []string
	for i := 0; i < int(n); i++ {
		var d C.CUdevice
		if err := l.cu("cuDeviceGet", C.lt_cu_device(l.api, &d, C.int(i))); err != nil {
			return 0, "", err
		}
		var buf [64]C.char
		if err := l.cu("cuDeviceGetPCIBusId", C.lt_cu_busid(l.api, &buf[0], C.int(len(buf)), d)); err != nil {
			return 0, "", err
		}
		b, err := pci.ParseBDF(C.GoString(&buf[0]))
		if err != nil {
			return 0, "", fmt.Errorf("cublaslt: cuDeviceGetPCIBusId: %w", err)
		}
		if want == "" || b.String() == want {
			return d, b.String(), nil
		}
		seen = append(seen, b.String())
	}
	return 0, "", fmt.Errorf("cublaslt: %q is not among the CUDA devices %v: %w", busID, seen, ErrNoDevice)
}

// openDevice makes the device's context current and creates the stream,
// events, handle and workspace. On error nothing is left behind.
func (l *Library) openDevice(busID string, wsBytes uint64) (*device, error) {
	dev, id, err := l.findDevice(busID)
	if err != nil {
		return nil, err
	}
	d := &device{l: l, dev: dev, busID: id, wsBytes: wsBytes}
	if err := d.setup(); err != nil {
		d.release()
		return nil, err
	}
	return d, nil
}

// setup does openDevice's work; the caller releases d on error.
func (d *device) setup() error {
	l := d.l
	var name [256]C.char
	if err := l.cu("cuDeviceGetName", C.lt_cu_name(l.api, &name[0], C.int(len(name)), d.dev)); err != nil {
		return err
	}
	d.name = C.GoString(&name[0])
	if err := l.cu("cuDevicePrimaryCtxRetain", C.lt_cu_retain(l.api, &d.ctx, d.dev)); err != nil {
		return err
	}
	d.retained = true
	if err := l.cu("cuCtxSetCurrent", C.lt_cu_current(l.api, d.ctx)); err != nil {
		return err
	}
	if err := l.cu("cuStreamCreate", C.lt_cu_stream(l.api, &d.stream)); err != nil {
		return err
	}
	for i := range d.ev {
		if err := l.cu("cuEventCreate", C.lt_cu_event(l.api, &d.ev[i])); err != nil {
			return err
		}
	}
	if err := lt("cublasLtCreate", C.lt_create(l.api, &d.handle)); err != nil {
		return err
	}
	ws, err := d.alloc(d.wsBytes)
	d.ws = ws
	return err
}

// release frees everything setup made, in reverse; safe to call twice.
// It returns the first error but always releases the rest.
func (d *device) release() error {
	l := d.l
	var errs []error
	if d.retained {
		errs = append(errs, l.cu("cuCtxSynchronize", C.lt_cu_sync(l.api)))
	}
	if d.ws != 0 {
		errs = append(errs, d.free(d.ws))
		d.ws = 0
	}
	if d.handle != nil {
		errs = append(errs, lt("cublasLtDestroy", C.lt_destroy(l.api, d.handle)))
		d.handle = nil
	}
	for i := range d.ev {
		if d.ev[i] != nil {
			errs = append(errs, l.cu("cuEventDestroy", C.lt_cu_event_destroy(l.api, d.ev[i])))
			d.ev[i] = nil
		}
	}
	if d.stream != nil {
		errs = append(errs, l.cu("cuStreamDestroy", C.lt_cu_stream_destroy(l.api, d.stream)))
		d.stream = nil
	}
	if d.retained {
		errs = append(errs, l.cu("cuDevicePrimaryCtxRelease", C.lt_cu_release(l.api, d.dev)))
		d.retained = false
	}
	return errors.Join(errs...)
}

// alloc allocates n bytes of device memory (at least one byte).
func (d *device) alloc(n uint64) (C.CUdeviceptr, error) {
	var p C.CUdeviceptr
	if err := d.l.cu(fmt.Sprintf("cuMemAlloc(%d bytes)", n), C.lt_cu_alloc(d.l.api, &p, C.size_t(max(n, 1)))); err != nil {
		return 0, err
	}
	return p, nil
}

// free releases device memory from alloc.
func (d *device) free(p C.CUdeviceptr) error { return d.l.cu("cuMemFree", C.lt_cu_free(d.l.api, p)) }

// upload allocates a device copy of b.
func (d *device) upload(b []byte) (C.CUdeviceptr, error) {
	p, err := d.alloc(uint64(len(b)))
	if err != nil {
		return 0, err
	}
	if len(b) > 0 {
		if err := d.l.cu("cuMemcpyHtoD", C.lt_cu_htod(d.l.api, p, unsafe.Pointer(unsafe.SliceData(b)), C.size_t(len(b)))); err != nil {
			return 0, errors.Join(err, d.free(p))
		}
	}
	return p, nil
}

// download copies len(b) bytes from p into b.
func (d *device) download(b []byte, p C.CUdeviceptr) error {
	return d.l.cu("cuMemcpyDtoH", C.lt_cu_dtoh(d.l.api, unsafe.Pointer(unsafe.SliceData(b)), p, C.size_t(len(b))))
}

// timed runs launch between the start and stop events and returns the
// events' elapsed time in seconds.
func (d *device) timed(launch func() error) (float64, error) {
	l := d.l
	if err := l.cu("cuEventRecord", C.lt_cu_record(l.api, d.ev[0], d.stream)); err != nil {
		return 0, err
	}
	if err := launch(); err != nil {
		return 0, err
	}
	if err := l.cu("cuEventRecord", C.lt_cu_record(l.api, d.ev[1], d.stream)); err != nil {
		return 0, err
	}
	if err := l.cu("cuEventSynchronize", C.lt_cu_event_sync(l.api, d.ev[1])); err != nil {
		return 0, err
	}
	var ms C.float
	if err := l.cu("cuEventElapsedTime", C.lt_cu_elapsed(l.api, &ms, d.ev[0], d.ev[1])); err != nil {
		return 0, err
	}
	return float64(ms) / 1e3, nil
}

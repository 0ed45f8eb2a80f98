//go:build linux && cgo

package cublaslt

/*
#include "ltapi.h"
*/
import "C"

import (
	"errors"
	"fmt"

	"github.com/everycycle/appraise/internal/platform/cuda"
	"github.com/everycycle/appraise/internal/platform/pci"
)

// device is one CUDA device opened for the probe; its primary context is
// current on the calling OS thread, which the caller locks.
type device struct {
	l        *Library
	dev      cuda.Device
	ctx      cuda.Context
	retained bool
	stream   cuda.Stream
	ev       [2]cuda.Event
	handle   C.cublasLtHandle_t
	ws       cuda.Ptr
	wsBytes  uint64
	busID    string
	name     string
	out      []byte // read-back buffer, reused
}

// scratch returns n bytes of the read-back buffer, valid until the next call.
func (d *device) scratch(n int) []byte {
	if cap(d.out) < n {
		d.out = make([]byte, n)
	}
	return d.out[:n]
}

func cu(err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("cublaslt: %w", err)
}

// findDevice returns the CUDA device at busID ("": device 0) and its
// normalised bus address.
func (l *Library) findDevice(busID string) (cuda.Device, string, error) {
	var want string
	if busID != "" {
		b, err := pci.ParseBDF(busID)
		if err != nil {
			return 0, "", fmt.Errorf("cublaslt: bus id: %w", err)
		}
		want = b.String()
	}
	n, err := l.drv.Count()
	if err != nil {
		return 0, "", cu(err)
	}
	var seen []string
	for i := range n {
		d, err := l.drv.Device(i)
		if err != nil {
			return 0, "", cu(err)
		}
		id, err := l.drv.BusID(d)
		if err != nil {
			return 0, "", cu(err)
		}
		b, err := pci.ParseBDF(id)
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

// openDevice makes the device's context current and creates what it
// needs; on error nothing is left behind.
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
	drv := d.l.drv
	var err error
	if d.name, err = drv.Name(d.dev); err != nil {
		return cu(err)
	}
	if d.ctx, err = drv.Retain(d.dev); err != nil {
		return cu(err)
	}
	d.retained = true
	if err := drv.SetCurrent(d.ctx); err != nil {
		return cu(err)
	}
	if d.stream, err = drv.NewStream(); err != nil {
		return cu(err)
	}
	for i := range d.ev {
		if d.ev[i], err = drv.NewEvent(); err != nil {
			return cu(err)
		}
	}
	if err := lt("cublasLtCreate", C.lt_create(d.l.api, &d.handle)); err != nil {
		return err
	}
	d.ws, err = d.alloc(d.wsBytes)
	return err
}

// release frees everything setup made, in reverse, and joins the errors;
// safe to call twice.
func (d *device) release() error {
	drv := d.l.drv
	var errs []error
	if d.retained {
		errs = append(errs, cu(drv.Sync()))
	}
	if d.ws != 0 {
		errs = append(errs, d.free(d.ws))
		d.ws = 0
	}
	if d.handle != nil {
		errs = append(errs, lt("cublasLtDestroy", C.lt_destroy(d.l.api, d.handle)))
		d.handle = nil
	}
	for i := range d.ev {
		if d.ev[i].Valid() {
			errs = append(errs, cu(drv.DestroyEvent(d.ev[i])))
			d.ev[i] = cuda.Event{}
		}
	}
	if d.stream.Valid() {
		errs = append(errs, cu(drv.DestroyStream(d.stream)))
		d.stream = cuda.Stream{}
	}
	if d.retained {
		errs = append(errs, cu(drv.Release(d.dev)))
		d.retained = false
	}
	return errors.Join(errs...)
}

// alloc allocates n bytes of device memory (at least one).
func (d *device) alloc(n uint64) (cuda.Ptr, error) {
	p, err := d.l.drv.Alloc(max(n, 1))
	return p, cu(err)
}

func (d *device) free(p cuda.Ptr) error { return cu(d.l.drv.Free(p)) }

// upload allocates a device copy of b.
func (d *device) upload(b []byte) (cuda.Ptr, error) {
	p, err := d.alloc(uint64(len(b)))
	if err != nil {
		return 0, err
	}
	if len(b) > 0 {
		if err := cu(d.l.drv.HtoD(p, b)); err != nil {
			return 0, errors.Join(err, d.free(p))
		}
	}
	return p, nil
}

// download copies len(b) bytes from p into b.
func (d *device) download(b []byte, p cuda.Ptr) error { return cu(d.l.drv.DtoH(b, p)) }

// timed runs launch between the events and returns their elapsed seconds.
func (d *device) timed(launch func() error) (float64, error) {
	drv := d.l.drv
	if err := drv.Record(d.ev[0], d.stream); err != nil {
		return 0, cu(err)
	}
	if err := launch(); err != nil {
		return 0, err
	}
	if err := drv.Record(d.ev[1], d.stream); err != nil {
		return 0, cu(err)
	}
	if err := drv.WaitEvent(d.ev[1]); err != nil {
		return 0, cu(err)
	}
	s, err := drv.Elapsed(d.ev[0], d.ev[1])
	return s, cu(err)
}

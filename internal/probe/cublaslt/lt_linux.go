//go:build linux && cgo

package cublaslt

/*
#cgo LDFLAGS: -ldl
#include <stdlib.h>
#include "ltapi.h"
*/
import "C"

import (
	"errors"
	"fmt"
	"unsafe"

	"github.com/everycycle/appraise/internal/platform/cuda"
)

// Library is a loaded cuBLASLt with the CUDA driver it runs on. It is not
// safe for concurrent use.
type Library struct {
	api  *C.lt_api
	drv  *cuda.Driver
	info LibraryInfo
}

// Open loads cuBLASLt and the CUDA driver; Close releases both. Errors are
// a *NotFoundError wrapping ErrNoLibrary, or wrap ErrNoDriver.
func Open(o LoadOptions) (*Library, error) {
	api := C.lt_new()
	if api == nil {
		return nil, errors.New("cublaslt: out of memory")
	}
	l := &Library{api: api, info: LibraryInfo{Name: "cuBLASLt"}}
	if err := l.openBlas(o.candidates()); err != nil {
		l.Close()
		return nil, err
	}
	if err := l.openDriver(o.Driver); err != nil {
		l.Close()
		return nil, err
	}
	return l, nil
}

// openBlas loads the first candidate that opens and has every entry point.
func (l *Library) openBlas(cands []candidate) error {
	nf := &NotFoundError{}
	for _, c := range cands {
		p := C.CString(c.path)
		msg := C.lt_open_blas(l.api, p)
		C.free(unsafe.Pointer(p))
		if msg != nil {
			nf.Tried = append(nf.Tried, Attempt{Path: c.path, Source: c.source, Err: C.GoString(msg)})
			continue
		}
		l.info.Path = C.GoString(C.lt_blas_file(l.api))
		if l.info.Path == "" {
			l.info.Path = c.path
		}
		l.info.Source = c.source
		l.info.Version = int(C.lt_version(l.api))
		return nil
	}
	return nf
}

// openDriver loads and initialises the CUDA driver.
func (l *Library) openDriver(path string) error {
	drv, err := cuda.Open(path)
	if err != nil {
		return fmt.Errorf("cublaslt: %w: %w", err, ErrNoDriver)
	}
	l.drv = drv
	return nil
}

// Close unloads the libraries; safe to call twice.
func (l *Library) Close() error {
	if l.drv != nil {
		l.drv.Close()
		l.drv = nil
	}
	if l.api != nil {
		C.lt_close(l.api)
		l.api = nil
	}
	return nil
}

// lt turns a failing cublasStatus_t into an error naming the call.
func lt(name string, r C.cublasStatus_t) error {
	if r == 0 {
		return nil
	}
	return fmt.Errorf("cublaslt: %s: %w", name, &StatusError{Code: int(r)})
}

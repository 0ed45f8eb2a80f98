//go:build linux && cgo

package peer

// The CUDA driver API, loaded at run time: dlopen of libcuda.so.1 and
// dlsym of the few entry points the probe uses, with the types declared
// here so no CUDA headers are needed to build. Versioned names (_v2) are
// the ones cuda.h maps the plain names to.

/*
#cgo LDFLAGS: -ldl
#include "cudadrv.h"
*/
import "C"

import (
	"fmt"
	"sync"
	"unsafe"
)

// CUDA result codes the probe branches on.
const (
	cuSuccess                = 0
	cuErrPeerAccessAlreadyOn = 704
)

// loadCUDA loads the library and runs cuInit once per process; the loaded
// entry points are process-wide by nature, as the Vulkan loader's are.
var loadCUDA = sync.OnceValue(func() error {
	if msg := C.peer_cu_load(); msg != nil {
		return fmt.Errorf("cuda: load libcuda.so.1: %s: %w", C.GoString(msg), ErrNoCUDA)
	}
	if r := C.peer_cu_init(); r != cuSuccess {
		return fmt.Errorf("cuda: cuInit: %w: %w", cuErr(r), ErrNoCUDA)
	}
	return nil
})

// cuErr turns a CUresult into an error, nil for success.
func cuErr(r C.CUresult) error {
	if r == cuSuccess {
		return nil
	}
	return &Error{Code: int(r), Name: C.GoString(C.peer_cu_errname(r))}
}

// call wraps a failing CUDA call's result with the call's name.
func call(name string, r C.CUresult) error {
	if err := cuErr(r); err != nil {
		return fmt.Errorf("cuda: %s: %w", name, err)
	}
	return nil
}

// devicesByBusID maps every CUDA device's normalised bus address to its
// ordinal.
func devicesByBusID() (map[string]C.CUdevice, error) {
	var n C.int
	if err := call("cuDeviceGetCount", C.peer_cu_count(&n)); err != nil {
		return nil, err
	}
	m := make(map[string]C.CUdevice, int(n))
	for i := 0; i < int(n); i++ {
		var d C.CUdevice
		if err := call("cuDeviceGet", C.peer_cu_device(&d, C.int(i))); err != nil {
			return nil, err
		}
		var buf [64]C.char
		if err := call("cuDeviceGetPCIBusId", C.peer_cu_busid(&buf[0], C.int(len(buf)), d)); err != nil {
			return nil, err
		}
		id, err := NormalizeBusID(C.GoString(&buf[0]))
		if err != nil {
			return nil, err
		}
		m[id] = d
	}
	return m, nil
}

// findPair returns the CUDA devices at bus addresses this and peer; ok is
// false when either is not a CUDA device.
func findPair(this, peer string) (devs [2]C.CUdevice, ok bool, err error) {
	m, err := devicesByBusID()
	if err != nil {
		return devs, false, err
	}
	for i, bdf := range []string{this, peer} {
		id, err := NormalizeBusID(bdf)
		if err != nil {
			return devs, false, err
		}
		d, found := m[id]
		if !found {
			return devs, false, nil
		}
		devs[i] = d
	}
	return devs, true, nil
}

// canAccess reports whether each device may access the other's memory.
func canAccess(d [2]C.CUdevice) (bool, error) {
	for _, p := range [][2]C.CUdevice{{d[0], d[1]}, {d[1], d[0]}} {
		var ok C.int
		if err := call("cuDeviceCanAccessPeer", C.peer_cu_can(&ok, p[0], p[1])); err != nil {
			return false, err
		}
		if ok == 0 {
			return false, nil
		}
	}
	return true, nil
}

// ptr is a Go byte slice's address for a synchronous CUDA copy, which
// does not keep it.
func ptr(p []byte) unsafe.Pointer { return unsafe.Pointer(unsafe.SliceData(p)) }

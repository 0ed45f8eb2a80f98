// Package nvml reads the identity and telemetry of NVIDIA GPUs through NVML,
// loaded at run time so that a binary still starts on a host without it.
// Start with Open and Lib.DeviceByBusID. Every field is best-effort: what a
// card does not support is left empty and explained in a Missing map. NVML is
// process-global: each Lib holds one nvmlInit reference until its first Close,
// and several Libs may be open at once.
package nvml

import (
	"errors"
	"fmt"
	"sync"

	gonvml "github.com/NVIDIA/go-nvml/pkg/nvml"
)

// LibraryName is the file name of the NVML library that [Open] loads.
const LibraryName = "libnvidia-ml.so.1"

var (
	// ErrUnavailable means this host has no NVML library or no NVIDIA driver.
	ErrUnavailable = errors.New("nvml: NVML unavailable")
	// ErrNotFound means NVML knows no device at the bus address.
	ErrNotFound = errors.New("nvml: no such device")
	// ErrNotSupported means the card or driver does not support a query.
	ErrNotSupported = errors.New("nvml: not supported")
	// ErrGPULost means the GPU fell off the bus or stopped answering.
	ErrGPULost = errors.New("nvml: GPU is lost")
	// ErrClosed means a Device was used after its Lib was closed.
	ErrClosed = errors.New("nvml: library closed")
)

// Error is a failed NVML call.
type Error struct {
	Op   string // e.g. "nvmlDeviceGetSerial"
	Code int    // the nvmlReturn_t
	Msg  string // NVML's text for Code
}

// newError takes Msg now, while the library that renders it is loaded.
func newError(op string, r gonvml.Return) *Error {
	return &Error{Op: op, Code: int(r), Msg: r.Error()}
}

// Error returns "nvml: <function>: <NVML's text>".
func (e *Error) Error() string {
	return fmt.Sprintf("nvml: %s: %s", e.Op, e.Msg)
}

// Is matches the sentinels that name the error's code.
func (e *Error) Is(target error) bool {
	switch target {
	case ErrNotFound:
		return e.Code == int(gonvml.ERROR_NOT_FOUND)
	case ErrNotSupported:
		return e.Code == int(gonvml.ERROR_NOT_SUPPORTED)
	case ErrGPULost:
		return e.Code == int(gonvml.ERROR_GPU_IS_LOST)
	}
	return false
}

// fatal reports whether r makes the device or library as a whole unusable.
func fatal(r gonvml.Return) bool {
	switch r {
	case gonvml.ERROR_UNINITIALIZED, gonvml.ERROR_DRIVER_NOT_LOADED,
		gonvml.ERROR_GPU_IS_LOST, gonvml.ERROR_RESET_REQUIRED,
		gonvml.ERROR_LIB_RM_VERSION_MISMATCH, gonvml.ERROR_LIBRARY_NOT_FOUND:
		return true
	}
	return false
}

// Lib is an initialised NVML; a Device of a closed Lib returns ErrClosed.
type Lib struct {
	api  api
	syms symbols // entry points that vary between driver versions

	mu     sync.RWMutex // held for reading by every NVML call, for writing by Close
	closed bool
}

// Open loads libnvidia-ml.so.1 and initialises NVML. Without the library or
// the driver, the error wraps ErrUnavailable.
func Open() (*Lib, error) {
	return open(processAPI{}, probeLoader)
}

func open(a api, loaderErr func() error) (*Lib, error) {
	switch r := a.Init(); r {
	case gonvml.SUCCESS:
	case gonvml.ERROR_LIBRARY_NOT_FOUND:
		return nil, fmt.Errorf("%w: load %s: %v", ErrUnavailable, LibraryName, loaderErr())
	case gonvml.ERROR_DRIVER_NOT_LOADED:
		return nil, fmt.Errorf("%w: %w", ErrUnavailable, newError("nvmlInit", r))
	default:
		// go-nvml keeps the library after a failed nvmlInit: no nvmlShutdown.
		return nil, newError("nvmlInit", r)
	}
	return &Lib{api: a, syms: lookupSymbols(a.Extensions())}, nil
}

// Close gives back Open's reference once calls in flight end; again, a no-op.
func (l *Lib) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return nil
	}
	l.closed = true
	if r := l.api.Shutdown(); r != gonvml.SUCCESS {
		return newError("nvmlShutdown", r)
	}
	return nil
}

// use runs f with the library held open, or returns ErrClosed.
func (l *Lib) use(f func() error) error {
	l.mu.RLock()
	defer l.mu.RUnlock()
	if l.closed {
		return ErrClosed
	}
	return f()
}

// DriverVersion returns the NVIDIA driver's version string.
func (l *Lib) DriverVersion() (string, error) {
	var v string
	err := l.use(func() error {
		s, r := l.api.SystemGetDriverVersion()
		if r != gonvml.SUCCESS {
			return newError("nvmlSystemGetDriverVersion", r)
		}
		v = s
		return nil
	})
	return v, err
}

// CUDADriverVersion returns the newest CUDA the driver supports, "major.minor".
func (l *Lib) CUDADriverVersion() (string, error) {
	var v string
	err := l.use(func() error {
		n, r := l.api.SystemGetCudaDriverVersion()
		if r != gonvml.SUCCESS {
			return newError("nvmlSystemGetCudaDriverVersion", r)
		}
		v = formatCUDAVersion(n)
		return nil
	})
	return v, err
}

func formatCUDAVersion(n int) string {
	return fmt.Sprintf("%d.%d", n/1000, n%1000/10)
}

// DeviceByBusID returns the device at a bus address in any form
// pci.ParseBDF accepts. The error wraps ErrNotFound when there is none.
func (l *Lib) DeviceByBusID(bdf string) (*Device, error) {
	id, err := ToNVMLBusID(bdf)
	if err != nil {
		return nil, err
	}
	ours, _ := FromNVMLBusID(id) // cannot fail: id was just formatted
	var d *Device
	err = l.use(func() error {
		h, r := l.api.DeviceGetHandleByPciBusId(id)
		if r != gonvml.SUCCESS {
			return fmt.Errorf("%s: %w", bdf, newError("nvmlDeviceGetHandleByPciBusId", r))
		}
		d = &Device{lib: l, dev: h, busID: ours}
		return nil
	})
	return d, err
}

// BusIDs returns the sysfs-form bus addresses of NVML's devices, in index order.
func (l *Lib) BusIDs() ([]string, error) {
	var ids []string
	err := l.use(func() error {
		n, r := l.api.DeviceGetCount()
		if r != gonvml.SUCCESS {
			return newError("nvmlDeviceGetCount", r)
		}
		for i := range n {
			id, err := l.busIDAt(i)
			if err != nil {
				return err
			}
			ids = append(ids, id)
		}
		return nil
	})
	return ids, err
}

func (l *Lib) busIDAt(i int) (string, error) {
	h, r := l.api.DeviceGetHandleByIndex(i)
	if r != gonvml.SUCCESS {
		return "", fmt.Errorf("device %d: %w", i, newError("nvmlDeviceGetHandleByIndex", r))
	}
	p, r := h.GetPciInfo()
	if r != gonvml.SUCCESS {
		return "", fmt.Errorf("device %d: %w", i, newError("nvmlDeviceGetPciInfo", r))
	}
	return FromNVMLBusID(cString(p.BusId[:]))
}

// Device is one GPU as NVML sees it; its methods are safe for concurrent use.
type Device struct {
	lib   *Lib
	dev   gonvml.Device
	busID string // sysfs form, as asked for
}

// BusID returns the sysfs-form bus address the device was looked up by.
func (d *Device) BusID() string { return d.busID }

// Package nvml reads identity and telemetry of NVIDIA GPUs through NVML, the
// library the NVIDIA driver installs as libnvidia-ml.so.1.
//
// Start with [Open], which loads the library at run time (through
// github.com/NVIDIA/go-nvml, so a binary that imports this package still
// starts on hosts without NVIDIA software) and returns [ErrUnavailable] when
// the library or the driver is absent. Then [Lib.DeviceByBusID] finds a card
// by its sysfs bus address; [Device.Identity] reads what names the card and
// [Device.Sample] reads temperature, power, clocks and throttle reasons for
// the thermal soak; [Device.Processes] and [Device.UtilizationPercent] say
// who else is using the card. Every field is best-effort: what NVML does not
// support on a card is left empty and explained in the value's Missing map.
//
// Identity is metadata: nothing read here enters a score. This package only
// reads NVML; rules over samples (time to throttle) live with their callers.
//
// # Process-global state
//
// NVML and go-nvml are process-global: go-nvml keeps one handle on the
// loaded library, a reference count and the addresses of the versioned NVML
// entry points in package variables, and NVML counts nvmlInit/nvmlShutdown
// pairs itself. Each [Lib] holds exactly one such reference: Open takes it
// (nvml.Init) and the first Close gives it back (nvml.Shutdown); later Close
// calls do nothing. Several Libs may be open at once, in any goroutines. This
// package adds no global state of its own.
//
// Binaries that import this package need cgo (go-nvml is a cgo package), as
// the WebGPU and Vulkan packages of appraise already do. go-nvml's first build
// prints gcc's warnings about the NVML functions its nvml.h marks deprecated;
// no #cgo flag here reaches that package, so the scripts silence exactly
// those warnings through CGO_CFLAGS (scripts/cgo-env).
package nvml

import (
	"errors"
	"fmt"
	"sync"

	gonvml "github.com/NVIDIA/go-nvml/pkg/nvml"
)

// LibraryName is the file name of the NVML library that [Open] loads.
const LibraryName = "libnvidia-ml.so.1"

// Sentinels that callers branch on with errors.Is.
var (
	// ErrUnavailable means NVML cannot be used on this host: the library is
	// not installed, or it is but the NVIDIA kernel driver is not loaded.
	// Callers record NVIDIA identity fields as null with the error's text
	// as the reason.
	ErrUnavailable = errors.New("nvml: NVML unavailable")
	// ErrNotFound means NVML knows no device at the given bus address (for
	// example an AMD card, or an NVIDIA card NVML was told to ignore).
	ErrNotFound = errors.New("nvml: no such device")
	// ErrNotSupported means the card or driver does not support a query.
	ErrNotSupported = errors.New("nvml: not supported")
	// ErrGPULost means the GPU fell off the bus or stopped answering; every
	// further reading of it is meaningless.
	ErrGPULost = errors.New("nvml: GPU is lost")
	// ErrClosed means a Device was used after its Lib was closed.
	ErrClosed = errors.New("nvml: library closed")
)

// Error is a failed NVML call.
type Error struct {
	// Op is the NVML function that failed, e.g. "nvmlDeviceGetSerial".
	Op string
	// Code is the nvmlReturn_t it returned.
	Code int
	// Msg is NVML's text for Code, e.g. "Not Supported".
	Msg string
}

// newError records a failed call. Msg is taken now, while the library that
// renders it is loaded.
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

// fatal reports whether r means the device or library as a whole is
// unusable, as opposed to one field being unsupported or forbidden.
func fatal(r gonvml.Return) bool {
	switch r {
	case gonvml.ERROR_UNINITIALIZED, gonvml.ERROR_DRIVER_NOT_LOADED,
		gonvml.ERROR_GPU_IS_LOST, gonvml.ERROR_RESET_REQUIRED,
		gonvml.ERROR_LIB_RM_VERSION_MISMATCH, gonvml.ERROR_LIBRARY_NOT_FOUND:
		return true
	}
	return false
}

// Lib is an initialised NVML. Close it when done; a Device must not be used
// after its Lib is closed (it then returns ErrClosed).
type Lib struct {
	api  api
	syms symbols // entry points that vary between driver versions

	mu     sync.RWMutex // held for reading by every NVML call, for writing by Close
	closed bool
}

// Open loads libnvidia-ml.so.1 and initialises NVML. When the library cannot
// be loaded, or the NVIDIA driver is not loaded, the error wraps
// ErrUnavailable and carries the dynamic loader's or NVML's message.
func Open() (*Lib, error) {
	return open(processAPI{}, probeLoader)
}

// open is Open over any api; loaderErr explains a failed load.
func open(a api, loaderErr func() error) (*Lib, error) {
	switch r := a.Init(); r {
	case gonvml.SUCCESS:
	case gonvml.ERROR_LIBRARY_NOT_FOUND:
		return nil, fmt.Errorf("%w: load %s: %v", ErrUnavailable, LibraryName, loaderErr())
	case gonvml.ERROR_DRIVER_NOT_LOADED:
		return nil, fmt.Errorf("%w: %w", ErrUnavailable, newError("nvmlInit", r))
	default:
		// go-nvml keeps the library loaded after a failed nvmlInit; that
		// handle is its, not ours, and nvmlShutdown must not follow.
		return nil, newError("nvmlInit", r)
	}
	return &Lib{api: a, syms: lookupSymbols(a.Extensions())}, nil
}

// Close shuts NVML down (one nvmlShutdown for the one nvmlInit of Open).
// It waits for NVML calls in flight on this Lib's devices. Calling it again
// does nothing and returns nil.
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

// DriverVersion returns the NVIDIA driver version, e.g. "580.159.04".
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

// CUDADriverVersion returns the newest CUDA version the driver supports as
// "major.minor", e.g. "13.0" (NVML reports 13000).
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

// formatCUDAVersion turns NVML's 1000*major + 10*minor into "major.minor".
func formatCUDAVersion(n int) string {
	return fmt.Sprintf("%d.%d", n/1000, n%1000/10)
}

// DeviceByBusID returns the NVIDIA device at a PCI bus address in the sysfs
// form ("0000:00:06.0"; NVML's "00000000:00:06.0" is accepted too). The
// error wraps ErrNotFound when NVML has no device there.
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

// BusIDs returns the sysfs-form bus addresses of every device NVML
// manages, in NVML's index order, to be matched with the PCI enumeration.
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

// busIDAt returns the bus address of the device at NVML index i.
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

// Device is one GPU as NVML sees it. Its methods may be called from several
// goroutines.
type Device struct {
	lib   *Lib
	dev   gonvml.Device
	busID string // sysfs form, as asked for
}

// BusID returns the sysfs-form bus address the device was looked up by.
func (d *Device) BusID() string { return d.busID }

package nvml

import (
	"errors"

	"github.com/NVIDIA/go-nvml/pkg/dl"
	gonvml "github.com/NVIDIA/go-nvml/pkg/nvml"
)

// api is the part of go-nvml's interface this package calls.
type api interface {
	Init() gonvml.Return
	Shutdown() gonvml.Return
	Extensions() gonvml.ExtendedInterface
	DeviceGetCount() (int, gonvml.Return)
	DeviceGetHandleByIndex(i int) (gonvml.Device, gonvml.Return)
	DeviceGetHandleByPciBusId(busID string) (gonvml.Device, gonvml.Return)
	SystemGetDriverVersion() (string, gonvml.Return)
	SystemGetCudaDriverVersion() (int, gonvml.Return)
}

// processAPI forwards to go-nvml's one process-wide library, which loads the
// versioned entry points once: a second Lib never rewrites them under another.
type processAPI struct{}

func (processAPI) Init() gonvml.Return                  { return gonvml.Init() }
func (processAPI) Shutdown() gonvml.Return              { return gonvml.Shutdown() }
func (processAPI) Extensions() gonvml.ExtendedInterface { return gonvml.Extensions() }
func (processAPI) SystemGetDriverVersion() (string, gonvml.Return) {
	return gonvml.SystemGetDriverVersion()
}

func (processAPI) SystemGetCudaDriverVersion() (int, gonvml.Return) {
	return gonvml.SystemGetCudaDriverVersion()
}

func (processAPI) DeviceGetCount() (int, gonvml.Return) { return gonvml.DeviceGetCount() }

func (processAPI) DeviceGetHandleByIndex(i int) (gonvml.Device, gonvml.Return) {
	return gonvml.DeviceGetHandleByIndex(i)
}

func (processAPI) DeviceGetHandleByPciBusId(busID string) (gonvml.Device, gonvml.Return) {
	return gonvml.DeviceGetHandleByPciBusId(busID)
}

// probeLoader loads the library once more for dlerror's text, which go-nvml's
// Init reduces to ERROR_LIBRARY_NOT_FOUND.
func probeLoader() error {
	lib := dl.New(LibraryName, dl.RTLD_LAZY|dl.RTLD_GLOBAL)
	if err := lib.Open(); err != nil {
		return err
	}
	_ = lib.Close() // loads now: it was missing a moment ago; nothing to report
	return errors.New("not found when NVML initialised, present a moment later")
}

// symbols records which version-dependent entry points the library has.
// Calling one it lacks aborts the process, so each such call checks first.
type symbols struct {
	temperature, temperatureV     bool // nvmlDeviceGetTemperature and its successor, …V
	eventReasons, throttleReasons bool // nvmlDeviceGetCurrentClocksEventReasons and its predecessor
}

func lookupSymbols(x gonvml.ExtendedInterface) symbols {
	has := func(name string) bool { return x.LookupSymbol(name) == nil }
	return symbols{
		temperature:     has("nvmlDeviceGetTemperature"),
		temperatureV:    has("nvmlDeviceGetTemperatureV"),
		eventReasons:    has("nvmlDeviceGetCurrentClocksEventReasons"),
		throttleReasons: has("nvmlDeviceGetCurrentClocksThrottleReasons"),
	}
}

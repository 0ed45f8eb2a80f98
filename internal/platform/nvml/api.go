package nvml

import (
	"errors"

	"github.com/NVIDIA/go-nvml/pkg/dl"
	gonvml "github.com/NVIDIA/go-nvml/pkg/nvml"
)

// api is the part of go-nvml's library interface this package calls. The
// process-wide library satisfies it through processAPI; tests use go-nvml's
// mock.Interface.
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

// processAPI forwards to go-nvml's package-level functions, which share its
// one process-wide library instance. That instance loads the versioned entry
// points once while any reference is held, instead of once per nvml.New
// instance, so opening a second Lib never rewrites go-nvml's function
// variables under a Lib that is in use.
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

// probeLoader explains why the library could not be loaded: go-nvml's Init
// reduces the loader's message to ERROR_LIBRARY_NOT_FOUND, so load it once
// more the same way (RTLD_LAZY|RTLD_GLOBAL) to get dlerror's text.
func probeLoader() error {
	lib := dl.New(LibraryName, dl.RTLD_LAZY|dl.RTLD_GLOBAL)
	if err := lib.Open(); err != nil {
		return err
	}
	_ = lib.Close() // loads now: it was missing a moment ago; nothing to report
	return errors.New("not found when NVML initialised, present a moment later")
}

// symbols records which entry points that come and go between driver
// versions this library has. Calling one it lacks would not fail but abort
// the process (go-nvml links them as unresolved symbols), so every call to
// one of these goes through a check of the matching flag.
type symbols struct {
	// temperature: nvmlDeviceGetTemperature, deprecated in the r580 (CUDA
	// 13.0) headers; temperatureV: its successor, nvmlDeviceGetTemperatureV.
	temperature, temperatureV bool
	// eventReasons: nvmlDeviceGetCurrentClocksEventReasons (r535 and later);
	// throttleReasons: its deprecated predecessor.
	eventReasons, throttleReasons bool
}

// lookupSymbols asks the loaded library which of the entry points exist.
func lookupSymbols(x gonvml.ExtendedInterface) symbols {
	has := func(name string) bool { return x.LookupSymbol(name) == nil }
	return symbols{
		temperature:     has("nvmlDeviceGetTemperature"),
		temperatureV:    has("nvmlDeviceGetTemperatureV"),
		eventReasons:    has("nvmlDeviceGetCurrentClocksEventReasons"),
		throttleReasons: has("nvmlDeviceGetCurrentClocksThrottleReasons"),
	}
}

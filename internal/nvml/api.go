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

func (processAPI) Init() gonvml.Return                     { return gonvml.Init() }
func (processAPI) Shutdown() gonvml.Return                 { return gonvml.Shutdown() }
func (processAPI) Extensions() gonvml.ExtendedInterface    { return gonvml.Extensions() }
func (processAPI) SystemGetDriverVersion() (string, gonvml.Return) {
	return gonvml.SystemGetDriverVersion()
}

func (processAPI) SystemGetCudaDriverVersion() (int, gonvml.Return) {
	return gonvml.SystemGetCudaDriverVersion()
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

package gpu

import (
	"errors"
	"fmt"
	"runtime"
	"strings"

	"github.com/cogentcore/webgpu/wgpu"
)

// ErrNoAdapter is returned when WebGPU finds no adapter at all.
var ErrNoAdapter = errors.New("gpu: no WebGPU adapter")

// Instance is a WebGPU instance: the entry point that enumerates adapters.
type Instance struct {
	inst *wgpu.Instance
}

// NewInstance creates a WebGPU instance on the platform's native backend
// (Vulkan on Linux). It limits wgpu-native's process-wide log to errors.
func NewInstance() (*Instance, error) {
	wgpu.SetLogLevel(wgpu.LogLevelError)
	i, err := createInstance(backends())
	if err != nil {
		return nil, err
	}
	return &Instance{inst: i}, nil
}

func (i *Instance) enumerate() []*wgpu.Adapter {
	return i.inst.EnumerateAdapters(&wgpu.InstanceEnumerateAdapterOptons{Backends: backends()})
}

func backends() wgpu.InstanceBackend {
	if runtime.GOOS == "linux" {
		return wgpu.InstanceBackendVulkan
	}
	return wgpu.InstanceBackendPrimary
}

// Release frees the instance. It is safe to call twice.
func (i *Instance) Release() {
	if i == nil || i.inst == nil {
		return
	}
	i.inst.Release()
	i.inst = nil
}

// AdapterInfo describes one adapter as WebGPU reports it.
type AdapterInfo struct {
	Index             int    // position in the enumeration
	Name              string // as the driver gives it; may be a bare "0x0"
	DriverDescription string
	Architecture      string // often empty
	VendorID          uint32 // PCI vendor ID, or a Khronos vendor ID for software
	DeviceID          uint32
	Type              string // "discrete-gpu", "integrated-gpu", "cpu" or "unknown"
	Backend           string // e.g. "vulkan"
	Software          bool   // not a GPU: see IsSoftware
}

// DisplayName is Name, or DriverDescription for an empty or hex-ID Name.
func (a AdapterInfo) DisplayName() string {
	n := strings.TrimSpace(a.Name)
	if (n == "" || isHexID(n)) && a.DriverDescription != "" {
		return a.DriverDescription
	}
	return n
}

func isHexID(s string) bool {
	h, ok := strings.CutPrefix(strings.ToLower(s), "0x")
	if !ok || h == "" {
		return false
	}
	return strings.Trim(h, "0123456789abcdef") == ""
}

func softwareRasterisers() []string {
	return []string{"llvmpipe", "lavapipe", "swiftshader", "softpipe",
		"microsoft basic render driver"}
}

// IsSoftware reports whether an adapter is a CPU implementation rather than
// a GPU: its type is "cpu", or its name or driver description names a
// software rasteriser.
func IsSoftware(typ, name, driver string) bool {
	if typ == "cpu" {
		return true
	}
	text := strings.ToLower(name + " " + driver)
	for _, s := range softwareRasterisers() {
		if containsWord(text, s) {
			return true
		}
	}
	return false
}

// containsWord reports whether word occurs in text between non-letters.
func containsWord(text, word string) bool {
	for i := 0; ; {
		j := strings.Index(text[i:], word)
		if j < 0 {
			return false
		}
		start, end := i+j, i+j+len(word)
		if !isLetter(text, start-1) && !isLetter(text, end) {
			return true
		}
		i = start + 1
	}
}

func isLetter(text string, i int) bool {
	if i < 0 || i >= len(text) {
		return false
	}
	c := text[i]
	return c >= 'a' && c <= 'z'
}

func adapterType(t wgpu.AdapterType) string {
	switch t {
	case wgpu.AdapterTypeDiscreteGPU:
		return "discrete-gpu"
	case wgpu.AdapterTypeIntegratedGPU:
		return "integrated-gpu"
	case wgpu.AdapterTypeCPU:
		return "cpu"
	default:
		return "unknown"
	}
}

func describe(index int, a *wgpu.Adapter) AdapterInfo {
	w := a.GetInfo()
	info := AdapterInfo{
		Index:             index,
		Name:              w.Name,
		DriverDescription: w.DriverDescription,
		Architecture:      w.Architecture,
		VendorID:          w.VendorId,
		DeviceID:          w.DeviceId,
		Type:              adapterType(w.AdapterType),
		Backend:           w.BackendType.String(),
	}
	info.Software = IsSoftware(info.Type, info.Name, info.DriverDescription)
	return info
}

// Adapters lists every adapter, software ones included, or ErrNoAdapter.
func (i *Instance) Adapters() ([]AdapterInfo, error) {
	if i == nil || i.inst == nil {
		return nil, errors.New("gpu: Adapters on a released instance")
	}
	adapters := i.enumerate()
	defer releaseAdapters(adapters)
	if len(adapters) == 0 {
		return nil, ErrNoAdapter
	}
	infos := make([]AdapterInfo, len(adapters))
	for n, a := range adapters {
		infos[n] = describe(n, a)
	}
	return infos, nil
}

func releaseAdapters(adapters []*wgpu.Adapter) {
	for _, a := range adapters {
		a.Release()
	}
}

// adapterFor returns the adapter a describes if still the same.
func (i *Instance) adapterFor(a AdapterInfo) (*wgpu.Adapter, error) {
	adapters := i.enumerate()
	if len(adapters) == 0 {
		return nil, ErrNoAdapter
	}
	if a.Index < 0 || a.Index >= len(adapters) {
		releaseAdapters(adapters)
		return nil, fmt.Errorf("gpu: adapter index %d out of range (%d adapters)", a.Index, len(adapters))
	}
	chosen := adapters[a.Index]
	releaseAdapters(append(adapters[:a.Index:a.Index], adapters[a.Index+1:]...))
	if got := describe(a.Index, chosen); got != a {
		chosen.Release()
		return nil, fmt.Errorf("gpu: adapter %d changed since enumeration: have %q, want %q", a.Index, got.DisplayName(), a.DisplayName())
	}
	return chosen, nil
}

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
// (Vulkan on Linux). It is created in wgpu_gap.go: the binding's
// CreateInstance passes uninitialised fields to wgpu-native.
//
// wgpu-native's own log is limited to errors: its warnings (a missing
// swapchain extension on a headless host) are noise on stderr, and every
// error that matters comes back through the returned errors as well.
func NewInstance() (*Instance, error) {
	wgpu.SetLogLevel(wgpu.LogLevelError)
	i, err := createInstance(backends())
	if err != nil {
		return nil, err
	}
	return &Instance{inst: i}, nil
}

// enumerate lists the instance's adapters on the native backend. The
// caller releases them.
func (i *Instance) enumerate() []*wgpu.Adapter {
	return i.inst.EnumerateAdapters(&wgpu.InstanceEnumerateAdapterOptons{Backends: backends()})
}

// backends picks the native backend: Vulkan on Linux, the primary set
// (Vulkan, Metal, D3D12) elsewhere.
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
	// Index is the adapter's position in the enumeration; Open uses it.
	Index int
	// Name is the device name the driver gives. It can be a bare "0x0" on
	// some drivers; DisplayName falls back to DriverDescription then.
	Name string
	// DriverDescription is the driver's free-text description.
	DriverDescription string
	// Architecture is the driver's architecture string (often empty).
	Architecture string
	// VendorID is the PCI vendor ID (or a Khronos vendor ID for software).
	VendorID uint32
	// DeviceID is the PCI device ID.
	DeviceID uint32
	// Type is "discrete-gpu", "integrated-gpu", "virtual-gpu", "cpu" or
	// "unknown". wgpu-native folds virtual GPUs into "unknown", so
	// "virtual-gpu" does not occur with this binding.
	Type string
	// Backend is the WebGPU backend, e.g. "vulkan".
	Backend string
	// Software is true when the adapter is not a GPU: see IsSoftware.
	Software bool
}

// DisplayName is Name, or DriverDescription when Name is empty or a bare
// hexadecimal ID such as "0x0".
func (a AdapterInfo) DisplayName() string {
	n := strings.TrimSpace(a.Name)
	if (n == "" || isHexID(n)) && a.DriverDescription != "" {
		return a.DriverDescription
	}
	return n
}

// isHexID reports whether s is "0x" followed by hex digits only.
func isHexID(s string) bool {
	h, ok := strings.CutPrefix(strings.ToLower(s), "0x")
	if !ok || h == "" {
		return false
	}
	return strings.Trim(h, "0123456789abcdef") == ""
}

// softwareRasterisers are substrings that name a CPU implementation of a
// graphics API in an adapter's name or driver description.
func softwareRasterisers() []string {
	return []string{"llvmpipe", "lavapipe", "swiftshader", "softpipe",
		"microsoft basic render driver"}
}

// IsSoftware reports whether an adapter is a CPU implementation rather than a
// GPU: its type is "cpu", or its name or driver description names a software
// rasteriser (llvmpipe/lavapipe, SwiftShader, softpipe, Microsoft Basic Render Driver). This is a
// "not a GPU" test, not a table of models: it never chooses sizes or expected
// figures.
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

// containsWord reports whether word occurs in text not glued to letters on
// either side (so "softpipe" does not match "softpipes").
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

// isLetter reports whether text[i] exists and is an ASCII letter.
func isLetter(text string, i int) bool {
	if i < 0 || i >= len(text) {
		return false
	}
	c := text[i]
	return c >= 'a' && c <= 'z'
}

// adapterType names a wgpu adapter type.
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

// describe turns the binding's adapter info into an AdapterInfo.
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

// Adapters lists every adapter the instance finds, software ones included. It
// returns ErrNoAdapter when there is none.
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

// releaseAdapters releases every adapter in the list.
func releaseAdapters(adapters []*wgpu.Adapter) {
	for _, a := range adapters {
		a.Release()
	}
}

// adapterFor enumerates again and returns the adapter that a describes,
// checking that it is still the same device. The caller releases it.
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

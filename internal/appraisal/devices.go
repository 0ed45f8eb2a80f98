package appraisal

import (
	"errors"
	"fmt"
	"io/fs"
	"strconv"
	"strings"

	"github.com/everycycle/appraise/coopmat/vk"
	"github.com/everycycle/appraise/gpu"
	"github.com/everycycle/appraise/internal/platform/pci"
)

// ErrNoDevice is returned when no device is left to appraise.
var ErrNoDevice = errors.New("no device to appraise")

// Candidate is a device seen on this machine and whether it is appraised.
type Candidate struct {
	// Addr is the PCI address, else "adapter-N" or "software-N".
	Addr string `json:"address"`
	// Adapter is WebGPU's; Index -1 is a PCI display device with none.
	Adapter gpu.AdapterInfo `json:"adapter"`
	// Included says whether a run appraises it; Reason says why or why not.
	Included bool   `json:"included"`
	Reason   string `json:"reason"`
	// BusAddress is the PCI address, when known.
	BusAddress string `json:"bus_address,omitempty"`
	// PCI is what sysfs says about the device, when found there.
	PCI *pci.Device `json:"pci,omitempty"`

	// Vulkan is the raw-Vulkan device behind it, or nil and vulkanWhy.
	Vulkan    *vk.DeviceInfo `json:"-"`
	vulkanWhy string
	// vulkanCould are the Vulkan indices of identical devices it could be.
	vulkanCould []int
}

// Inventory is everything enumerated on a machine, before classification.
type Inventory struct {
	// Adapters are the WebGPU adapters.
	Adapters []gpu.AdapterInfo
	// Vulkan are the raw-Vulkan physical devices, or VulkanErr.
	Vulkan    []vk.DeviceInfo
	VulkanErr error
	// PCI are the PCI functions in sysfs, or PCIErr.
	PCI    []pci.Device
	PCIErr error
	// Proven maps adapter indices to Vulkan indices (proveMapping).
	Proven map[int]int
}

// Candidates classifies every adapter and unmatched PCI display device:
// discrete GPUs the PCI filter accepts, software ones when software is set.
func Candidates(inv Inventory, software bool) []Candidate {
	out := make([]Candidate, 0, len(inv.Adapters))
	seen := map[string]bool{}
	for _, a := range inv.Adapters {
		c := adapterCandidate(a, inv, software)
		if c.BusAddress != "" {
			seen[c.BusAddress] = true
		}
		out = append(out, c)
	}
	for i := range inv.PCI {
		d := &inv.PCI[i]
		if d.BaseClass() != 0x03 || seen[d.BDF.String()] {
			continue
		}
		_, why := pci.Classify(*d)
		reason := "no Vulkan adapter stands for this device; PCI: " + why
		if unmappedTwin(out, d) {
			reason = "an adapter with the same vendor:device exists, but which one is this device is not proven; PCI: " + why
		}
		out = append(out, Candidate{Addr: d.BDF.String(), Adapter: gpu.AdapterInfo{Index: -1}, BusAddress: d.BDF.String(), PCI: d, Reason: reason})
	}
	return out
}

// unmappedTwin reports whether an adapter without a bus address has d's ids.
func unmappedTwin(cands []Candidate, d *pci.Device) bool {
	for _, c := range cands {
		if c.BusAddress == "" && c.Adapter.VendorID == uint32(d.VendorID) && c.Adapter.DeviceID == uint32(d.DeviceID) {
			return true
		}
	}
	return false
}

func adapterCandidate(a gpu.AdapterInfo, inv Inventory, software bool) Candidate {
	c := Candidate{Addr: fmt.Sprintf("adapter-%d", a.Index), Adapter: a}
	if inv.VulkanErr != nil {
		c.vulkanWhy = "raw Vulkan enumeration failed: " + inv.VulkanErr.Error()
	} else {
		c.Vulkan, c.vulkanCould, c.vulkanWhy = matchVulkan(a, inv.Vulkan, inv.Proven)
	}
	if c.Vulkan != nil && c.Vulkan.PCI != nil {
		c.BusAddress = c.Vulkan.PCI.String()
		c.Addr = c.BusAddress
		c.PCI = findPCI(inv.PCI, c.BusAddress)
	}
	switch {
	case a.Software && software:
		c.Addr = fmt.Sprintf("software-%d", a.Index)
		c.Included, c.Reason = true, "software adapter, included by --software (not a GPU)"
	case a.Software:
		c.Addr = fmt.Sprintf("software-%d", a.Index)
		c.Reason = "software adapter (runs on the CPU); pass --software to appraise it"
	case a.Type == "discrete-gpu":
		c.Included, c.Reason = pciVerdict(c.PCI)
	case a.Type == "integrated-gpu":
		c.Reason = "integrated GPU: shares host memory, out of scope"
	default:
		c.Reason = fmt.Sprintf("adapter type %q: not a discrete GPU", a.Type)
	}
	return c
}

// pciVerdict lets the PCI filter, when it has sysfs data, overrule the driver.
func pciVerdict(d *pci.Device) (bool, string) {
	if d == nil {
		return true, "discrete GPU"
	}
	ok, why := pci.Classify(*d)
	if !ok {
		return false, "PCI: " + why
	}
	return true, "discrete GPU; PCI: " + why
}

func findPCI(devs []pci.Device, addr string) *pci.Device {
	want, err := pci.ParseBDF(addr)
	if err != nil {
		return nil
	}
	for i := range devs {
		if devs[i].BDF.Compare(want) == 0 {
			return &devs[i]
		}
	}
	return nil
}

// Select narrows the included candidates to a --device selector ("", "all",
// an adapter index or an address); an excluded device is an error saying why.
func Select(cands []Candidate, sel string) ([]Candidate, error) {
	sel = strings.TrimSpace(sel)
	var out []Candidate
	for _, c := range cands {
		if !matches(c, sel) {
			continue
		}
		if !c.Included {
			if sel != "" && sel != "all" {
				return nil, fmt.Errorf("%w: device %s is excluded: %s", ErrNoDevice, sel, c.Reason)
			}
			continue
		}
		out = append(out, c)
	}
	if len(out) == 0 {
		if sel != "" && sel != "all" {
			return nil, fmt.Errorf("%w: no device matches %q (see appraise devices)", ErrNoDevice, sel)
		}
		return nil, ErrNoDevice
	}
	return out, nil
}

func matches(c Candidate, sel string) bool {
	if sel == "" || sel == "all" {
		return true
	}
	if n, err := strconv.Atoi(sel); err == nil {
		return n == c.Adapter.Index
	}
	return sel == c.Addr
}

// Discover enumerates and classifies the WebGPU adapters, raw-Vulkan devices
// and PCI functions below sysfsRoot; warnings name PCI entries left out.
func Discover(inst *gpu.Instance, software bool, sysfsRoot string) (cands []Candidate, warnings []error, err error) {
	adapters, err := inst.Adapters()
	if err != nil {
		return nil, nil, err
	}
	inv := Inventory{Adapters: adapters}
	inv.Vulkan, inv.VulkanErr = vk.Devices()
	inv.PCI, inv.PCIErr = pci.Scan(sysfsRoot)
	warnings = pciWarnings(inv.PCIErr)
	cands = Candidates(inv, software)
	amb := map[int][]int{}
	for _, c := range cands {
		if len(c.vulkanCould) > 0 {
			amb[c.Adapter.Index] = c.vulkanCould
		}
	}
	if len(amb) == 0 {
		return cands, warnings, nil
	}
	proven, err := proveMapping(amb, holdOn(inst, adapters), heapUsage)
	if err != nil {
		return cands, warnings, nil // unproven adapters keep no bus address, and say why
	}
	inv.Proven = proven
	return Candidates(inv, software), warnings, nil
}

// pciWarnings is one warning per entry of a pci.Scan error.
func pciWarnings(err error) []error {
	if err == nil || errors.Is(err, fs.ErrNotExist) && !isJoined(err) {
		return nil
	}
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		return j.Unwrap()
	}
	return []error{err}
}

func isJoined(err error) bool {
	_, ok := err.(interface{ Unwrap() []error })
	return ok
}

// holdOn holds memory on an adapter through WebGPU.
func holdOn(inst *gpu.Instance, adapters []gpu.AdapterInfo) holdFunc {
	return func(index int, bytes uint64) (func(), error) {
		for _, a := range adapters {
			if a.Index != index {
				continue
			}
			d, err := gpu.Open(inst, a, gpu.Options{MemoryLimit: 2 * bytes})
			if err != nil {
				return nil, err
			}
			release, err := gpu.Hold(d, bytes)
			if err != nil {
				d.Release()
				return nil, err
			}
			return func() { release(); d.Release() }, nil
		}
		return nil, fmt.Errorf("no adapter %d", index)
	}
}

// heapUsage reads a Vulkan device's device-local heap usage.
func heapUsage(index int) (uint64, error) {
	u, _, err := vk.HeapUsage(index)
	return u, err
}

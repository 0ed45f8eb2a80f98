package appraisal

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/everycycle/appraise/coopmat"
	"github.com/everycycle/appraise/gpu"
)

// ErrNoDevice is returned when no device is left to appraise.
var ErrNoDevice = errors.New("no device to appraise")

// Candidate is an adapter seen on this machine and whether the appraisal
// includes it.
type Candidate struct {
	// Addr is the device address used in reports: "adapter-N" until the
	// PCI address is known, "software-N" for a software adapter.
	Addr string `json:"address"`
	// Adapter is what WebGPU reports.
	Adapter gpu.AdapterInfo `json:"adapter"`
	// Included says whether a run with the same options appraises it.
	Included bool `json:"included"`
	// Reason says why it is included or excluded.
	Reason string `json:"reason"`
	// BusAddress is the PCI address, when the raw-Vulkan device behind the
	// adapter was matched and reports one.
	BusAddress string `json:"bus_address,omitempty"`

	// Vulkan is the raw-Vulkan device behind the adapter; nil when it could
	// not be matched, and vulkanWhy says why.
	Vulkan    *coopmat.DeviceInfo `json:"-"`
	vulkanWhy string
}

// Candidates classifies every adapter. Software adapters are excluded
// unless software is set; integrated and other non-discrete adapters are
// out of scope (the appraisal targets discrete GPUs with their own memory).
//
// vk lists the raw-Vulkan devices (nil when that enumeration failed, with
// vkErr saying why); a unique match gives the adapter its PCI address.
func Candidates(adapters []gpu.AdapterInfo, vk []coopmat.DeviceInfo, vkErr error, software bool) []Candidate {
	out := make([]Candidate, 0, len(adapters))
	for _, a := range adapters {
		c := Candidate{Addr: fmt.Sprintf("adapter-%d", a.Index), Adapter: a}
		if vkErr != nil {
			c.vulkanWhy = "raw Vulkan enumeration failed: " + vkErr.Error()
		} else {
			c.Vulkan, c.vulkanWhy = matchVulkan(a, vk)
		}
		if c.Vulkan != nil && c.Vulkan.PCI != nil {
			c.BusAddress = c.Vulkan.PCI.String()
			c.Addr = c.BusAddress
		}
		switch {
		case a.Software && software:
			c.Addr = fmt.Sprintf("software-%d", a.Index)
			c.Included, c.Reason = true, "software adapter, included by --software (not a GPU)"
		case a.Software:
			c.Addr = fmt.Sprintf("software-%d", a.Index)
			c.Reason = "software adapter (runs on the CPU); pass --software to appraise it"
		case a.Type == "discrete-gpu":
			c.Included, c.Reason = true, "discrete GPU"
		case a.Type == "integrated-gpu":
			c.Reason = "integrated GPU: shares host memory, out of scope"
		default:
			c.Reason = fmt.Sprintf("adapter type %q: not a discrete GPU", a.Type)
		}
		out = append(out, c)
	}
	return out
}

// Select narrows the included candidates to those a --device selector
// names: "" or "all" for every included device, an adapter index, or a
// device address. Naming an excluded device is an error that says why.
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

// Discover enumerates the adapters through WebGPU and the physical devices
// through raw Vulkan, and classifies them.
func Discover(inst *gpu.Instance, software bool) ([]Candidate, error) {
	adapters, err := inst.Adapters()
	if err != nil {
		return nil, err
	}
	vk, vkErr := coopmat.Devices()
	return Candidates(adapters, vk, vkErr, software), nil
}

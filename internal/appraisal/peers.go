package appraisal

import (
	"context"
	"fmt"
	"sync"

	"github.com/everycycle/appraise/coopmat/link"
	"github.com/everycycle/appraise/coopmat/vk"
	"github.com/everycycle/appraise/gpu"
	"github.com/everycycle/appraise/internal/probe"
	"github.com/everycycle/appraise/internal/probe/peer"
	"github.com/everycycle/appraise/schema"
)

// together measures the host links at once and the peer links.
func together(ctx context.Context, inst *gpu.Instance, devs []Candidate, plans []DevicePlan, vs []*schema.CapabilityVector, w *worker, box *schema.BoxPayload) error {
	w.stage("host links at once")
	if err := hostLinksAtOnce(ctx, devs, plans, box); err != nil {
		return fmt.Errorf("%w: host links at once: %w", ErrProbe, err)
	}
	ds, err := openAll(inst, devs, plans)
	if err != nil {
		return err
	}
	defer releaseAll(ds)
	w.stage("peer links")
	groups, groupsErr := vk.DeviceGroups()
	return peerLinks(ctx, devs, ds, vs, vulkanGroups{groups, groupsErr})
}

// openAll opens every device through WebGPU; on error nothing is left open.
func openAll(inst *gpu.Instance, devs []Candidate, plans []DevicePlan) ([]*gpu.Device, error) {
	ds := make([]*gpu.Device, 0, len(devs))
	for i, c := range devs {
		d, err := gpu.Open(inst, c.Adapter, plans[i].gpu)
		if err != nil {
			releaseAll(ds)
			return nil, fmt.Errorf("%s: %w", c.Addr, err)
		}
		ds = append(ds, d)
	}
	return ds, nil
}

func releaseAll(ds []*gpu.Device) {
	for _, d := range ds {
		d.Release()
	}
}

// hostLinksAtOnce measures every raw-Vulkan host link at once into box.
func hostLinksAtOnce(ctx context.Context, devs []Candidate, plans []DevicePlan, box *schema.BoxPayload) error {
	var at []int
	for i, c := range devs {
		if c.Vulkan != nil {
			at = append(at, i)
		}
	}
	if len(at) < 2 {
		box.NotMeasured = append(box.NotMeasured, schema.Omission{Field: "host_links",
			Reason: "fewer than two of the run's devices were matched to a raw-Vulkan device, through which the host link is measured"})
		return nil
	}
	ds := make([]*vk.Device, 0, len(at))
	defer func() {
		for _, d := range ds {
			d.Release()
		}
	}()
	for _, i := range at {
		d, err := vk.Open(devs[i].Vulkan.Index)
		if err != nil {
			return fmt.Errorf("%s: %w", devs[i].Addr, err)
		}
		ds = append(ds, d)
	}
	cs := make([]*probe.Contribution, len(ds))
	errs := make([]error, len(ds))
	var wg sync.WaitGroup
	for k, d := range ds {
		p := link.HostLinkProbe{Options: plans[at[k]].transfer}
		p.Options.BulkOnly = true
		wg.Go(func() { cs[k], errs[k] = p.Run(ctx, d) })
	}
	wg.Wait()
	out := &schema.HostLinksAtOnce{}
	for k, i := range at {
		if errs[k] != nil {
			return fmt.Errorf("%s: %w", devs[i].Addr, errs[k])
		}
		h2d, d2h := cs[k].HostToDevice, cs[k].DeviceToHost
		out.Devices = append(out.Devices, schema.DeviceHostLink{BusAddress: devs[i].Addr, HostToDevice: *h2d, DeviceToHost: *d2h})
		out.HostToDeviceBytesPerS += h2d.BytesPerS.Median
		out.DeviceToHostBytesPerS += d2h.BytesPerS.Median
	}
	box.HostLinks = out
	return schema.Validate(out)
}

// vulkanGroups is what the driver says about Vulkan device groups.
type vulkanGroups struct {
	groups [][]int
	err    error
}

// why says why the Vulkan device-group path is not taken for a and b.
func (g vulkanGroups) why(a, b Candidate) string {
	switch {
	case g.err != nil:
		return "Vulkan device groups unknown: " + g.err.Error()
	case a.Vulkan == nil || b.Vulkan == nil:
		return "a device was not matched to its Vulkan device"
	case vk.SharedGroup(g.groups, a.Vulkan.Index, b.Vulkan.Index):
		return "one Vulkan device group holds both devices, but this probe suite has no device-group peer probe yet"
	}
	return "no Vulkan device group holds both devices"
}

// stagedEndpoint is a WebGPU device as an end of a host-staged pair.
type stagedEndpoint struct{ d *gpu.Device }

func (e stagedEndpoint) NewArray(n uint64) (peer.Array, error) {
	a, err := e.d.NewArray(n)
	if err != nil {
		return nil, err
	}
	return a, nil
}

// peerLinks measures every ordered pair of devices with a bus address.
func peerLinks(ctx context.Context, devs []Candidate, ds []*gpu.Device, vs []*schema.CapabilityVector, g vulkanGroups) error {
	var at []int // index in devs of each device in set.List
	for i, c := range devs {
		if c.BusAddress != "" {
			at = append(at, i)
		}
	}
	peersOmitted(devs, vs, len(at))
	if len(at) < 2 {
		return nil
	}
	set := peer.Devices{VulkanWhy: func(this, other int) string { return g.why(devs[at[this]], devs[at[other]]) }}
	for _, i := range at {
		set.List = append(set.List, peer.Device{BusAddress: devs[i].BusAddress, Staged: stagedEndpoint{ds[i]}, MemoryLimit: ds[i].MemoryLimit()})
	}
	for k, i := range at {
		p := peer.LinksFrom(k)
		c, err := p.Run(ctx, set)
		if err != nil {
			return fmt.Errorf("%w: %s: %w", ErrProbe, p.Name(), err)
		}
		if err := add(vs[i], c); err != nil {
			return fmt.Errorf("%s: %w", devs[i].Addr, err)
		}
	}
	return nil
}

// peersOmitted says why interconnect.peers is absent; withBus counts bus addresses.
func peersOmitted(devs []Candidate, vs []*schema.CapabilityVector, withBus int) {
	for i, c := range devs {
		var why string
		switch {
		case vs[i].Interconnect == nil:
			continue
		case c.BusAddress == "" && c.Adapter.Software:
			why = "a software adapter has no PCI bus address, by which a peer link names its peer"
		case c.BusAddress == "" && c.Vulkan != nil:
			why = "the Vulkan driver reports no PCI bus address for this device (no VK_EXT_pci_bus_info), by which a peer link names its peer"
		case c.BusAddress == "":
			why = "this device's PCI bus address is unknown (" + c.vulkanWhy + "), and a peer link names its peer by it"
		case withBus < 2:
			why = "no other appraised device has a PCI bus address, by which a peer link names its peer"
		default:
			continue
		}
		vs[i].NotMeasured = append(vs[i].NotMeasured, schema.Omission{Field: "interconnect.peers", Reason: why})
	}
}

package peer

import (
	"context"
	"fmt"

	"github.com/everycycle/appraise/internal/probe"
	"github.com/everycycle/appraise/schema"
)

// Device is one appraised device as the peer-link probe sees it.
type Device struct {
	// BusAddress is its PCI address.
	BusAddress string
	// Staged is its end of a host-staged transfer (the opened WebGPU
	// device).
	Staged Endpoint
	// MemoryLimit is the most a probe may allocate on it, in bytes.
	MemoryLimit uint64
}

// Devices is the set of appraised devices whose directed links are
// measured, all open at once.
type Devices struct {
	// List holds the devices, each with a bus address.
	List []Device
	// VulkanWhy says why the vulkan-device-group path is not taken from
	// List[this] to List[peer] (Availability.VulkanWhy).
	VulkanWhy func(this, peer int) string
}

// LinksFrom is the peer-link probe of one device of a set, by its index
// in Devices.List: its directed links to every other device, each over
// the best path the pair offers (Choose). The card names each link's
// path and the probe that measured it (Path.Probe), not this one.
type LinksFrom int

var _ probe.Probe[Devices] = LinksFrom(0)

// Name names the peer-link probes together, for progress and errors.
func (LinksFrom) Name() string { return "peerlinks" }

// Version changes whenever what the probe measures, or how, changes.
func (LinksFrom) Version() string { return "1" }

// Run measures the links from d.List[p] to every other device, in order:
// the contribution holds them as peer links, and each preferred path
// passed over for a pair as a skip saying why.
func (p LinksFrom) Run(ctx context.Context, d Devices) (*probe.Contribution, error) {
	c := &probe.Contribution{}
	if len(d.List) < 2 {
		return c, nil
	}
	this := d.List[p]
	var rs []PairResult
	for j, other := range d.List {
		if j == int(p) {
			continue
		}
		st, err := DetectCUDA(this.BusAddress, other.BusAddress)
		if err != nil {
			return nil, fmt.Errorf("%s → %s: %w", this.BusAddress, other.BusAddress, err)
		}
		ch := Choose(Availability{VulkanWhy: d.VulkanWhy(int(p), j), CUDA: st})
		r, err := measureOver(ctx, ch.Path, this, other)
		if err != nil {
			return nil, fmt.Errorf("%s → %s: %w", this.BusAddress, other.BusAddress, err)
		}
		for _, pass := range ch.Passed {
			c.Skipped = append(c.Skipped, schema.Skip{Probe: pass.Path.Probe(), Item: "peer " + other.BusAddress,
				Reason: fmt.Sprintf("%s; measured over %s instead", pass.Why, ch.Path)})
		}
		rs = append(rs, r)
	}
	links, err := Links(this.BusAddress, rs)
	if err != nil {
		return nil, err
	}
	c.Peers = links
	return c, nil
}

// measureOver measures this → other over path.
func measureOver(ctx context.Context, path Path, this, other Device) (PairResult, error) {
	switch path {
	case PathCUDAPeer:
		return MeasurePair(ctx, this.BusAddress, other.BusAddress, 0)
	case PathHostStaged:
		return MeasureHostStaged(ctx, this.BusAddress, other.BusAddress, this.Staged, other.Staged, stagedBytes(this, other))
	}
	return PairResult{}, fmt.Errorf("path %s has no probe", path)
}

// stagedBytes is the host-staged transfer size for a pair: StagedBytes,
// or an eighth of the smaller memory limit (six buffers of it are made),
// whole pages, at least 1 MiB.
func stagedBytes(a, b Device) uint64 {
	n := min(uint64(StagedBytes), a.MemoryLimit/8, b.MemoryLimit/8)
	return max(n&^4095, 1<<20)
}

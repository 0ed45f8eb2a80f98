package peer

import (
	"context"
	"fmt"

	"github.com/everycycle/appraise/internal/probe"
	"github.com/everycycle/appraise/schema"
)

// Device is one appraised device as the peer-link probe sees it.
type Device struct {
	BusAddress  string   // PCI address
	Staged      Endpoint // its end of a host-staged transfer
	MemoryLimit uint64   // the most a probe may allocate on it, bytes
}

// Devices is the set of appraised devices whose links are measured, all open.
type Devices struct {
	List      []Device                    // each with a bus address
	VulkanWhy func(this, peer int) string // why no Vulkan device group holds List[this] and List[peer]
}

// LinksFrom is the peer-link probe of the device at that index of
// Devices.List, over each pair's best path.
type LinksFrom int

var _ probe.Probe[Devices] = LinksFrom(0)

// Name names the peer-link probes together, for progress and errors.
func (LinksFrom) Name() string { return "peerlinks" }

// Version changes whenever what the probe measures, or how, changes.
func (LinksFrom) Version() string { return "1" }

// Run measures the links from d.List[p] to every other device, with a skip
// for each preferred path passed over.
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

func measureOver(ctx context.Context, path Path, this, other Device) (PairResult, error) {
	switch path {
	case PathCUDAPeer:
		return MeasurePair(ctx, this.BusAddress, other.BusAddress, 0)
	case PathHostStaged:
		return MeasureHostStaged(ctx, this.BusAddress, other.BusAddress, this.Staged, other.Staged, stagedBytes(this, other))
	}
	return PairResult{}, fmt.Errorf("path %s has no probe", path)
}

// stagedBytes is StagedBytes, or an eighth of the smaller memory limit (six
// buffers are made), in whole pages and at least 1 MiB.
func stagedBytes(a, b Device) uint64 {
	n := min(uint64(StagedBytes), a.MemoryLimit/8, b.MemoryLimit/8)
	return max(n&^4095, 1<<20)
}

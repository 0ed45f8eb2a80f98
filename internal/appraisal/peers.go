package appraisal

import (
	"context"
	"fmt"

	"github.com/everycycle/appraise/internal/peer"
	"github.com/everycycle/appraise/schema"
)

// peerLinks measures every ordered pair of appraised devices that have a
// bus address, through the best path each pair offers (peer.Choose), and
// fills each card's Interconnect.Peers. A pair whose only path this probe
// suite lacks is recorded as skipped with the reason, never as a figure.
func peerLinks(ctx context.Context, devs []Candidate, vs []*schema.CapabilityVector) error {
	index := map[string]int{}
	var addrs []string
	for i, c := range devs {
		if c.BusAddress != "" {
			index[c.BusAddress] = i
			addrs = append(addrs, c.BusAddress)
		}
	}
	results := map[string][]peer.PairResult{}
	for _, p := range peer.Pairs(addrs) {
		v := vs[index[p.This]]
		st, _ := peer.DetectCUDA(p.This, p.Peer)
		ch := peer.Choose(peer.Availability{CUDA: st})
		if ch.Path != peer.PathCUDAPeer {
			v.Skipped = append(v.Skipped, schema.Skip{Probe: ch.Path.Probe(), Item: "peer " + p.Peer,
				Reason: fmt.Sprintf("path %s is not in this probe suite yet (%s)", ch.Path, ch.Passed)})
			continue
		}
		r, err := peer.MeasurePair(ctx, p.This, p.Peer, 0)
		if err != nil {
			return fmt.Errorf("%w: %s → %s: %w", ErrProbe, p.This, p.Peer, err)
		}
		results[p.This] = append(results[p.This], r)
	}
	for this, rs := range results {
		links, err := peer.Links(this, rs)
		if err != nil {
			return err
		}
		v := vs[index[this]]
		if v.Interconnect == nil {
			v.Interconnect = &schema.Interconnect{}
		}
		v.Interconnect.Peers = links
	}
	return nil
}

package peer

import (
	"context"
	"strings"
	"testing"
)

// The probe of one device of three, over host memory: a link to each
// other device, in order, over the host-staged path (no CUDA device has
// these addresses), each carrying a passed check, and each preferred
// path passed over a skip naming the peer and why.
func TestLinksFromInMemory(t *testing.T) {
	addrs := []string{"0000:7f:1d.6", "0000:7f:1e.6", "0000:7f:1f.6"}
	d := Devices{VulkanWhy: func(this, peer int) string { return "" }}
	for _, a := range addrs {
		d.List = append(d.List, Device{BusAddress: a, Staged: &memEndpoint{}, MemoryLimit: 8 << 20})
	}
	c, err := LinksFrom(1).Run(context.Background(), d)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Peers) != 2 || c.Peers[0].Peer != addrs[0] || c.Peers[1].Peer != addrs[2] {
		t.Fatalf("peers %+v", c.Peers)
	}
	for _, l := range c.Peers {
		if l.OneWay.Path != string(PathHostStaged) || !l.OneWay.Check.Passed || l.OneWay.TransferBytes != 1<<20 {
			t.Errorf("link %+v", l.OneWay)
		}
	}
	if len(c.Skipped) != 4 || c.Skipped[0].Item != "peer "+addrs[0] || c.Skipped[3].Item != "peer "+addrs[2] ||
		!strings.Contains(c.Skipped[1].Reason, "measured over host-staged instead") {
		t.Errorf("skips %+v", c.Skipped)
	}
}

// One device has no peer: nothing is measured.
func TestLinksFromAlone(t *testing.T) {
	c, err := LinksFrom(0).Run(context.Background(), Devices{List: []Device{{BusAddress: "bad"}}})
	if err != nil || len(c.Peers) != 0 || len(c.Skipped) != 0 {
		t.Fatalf("%v, %+v", err, c)
	}
}

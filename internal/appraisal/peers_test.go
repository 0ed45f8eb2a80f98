package appraisal

import (
	"context"
	"strings"
	"testing"

	"github.com/everycycle/appraise/schema"
)

// TestPeerLinksWithoutAPath: on a machine without the CUDA driver library
// (this one, CI) two devices get no peer figure, and each card says why
// for its one directed link.
func TestPeerLinksWithoutAPath(t *testing.T) {
	devs := []Candidate{{BusAddress: "0000:00:06.0"}, {BusAddress: "0000:00:07.0"}}
	vs := []*schema.CapabilityVector{{}, {}}
	if err := peerLinks(context.Background(), devs, vs); err != nil {
		t.Fatal(err)
	}
	for i, v := range vs {
		if v.Interconnect != nil && len(v.Interconnect.Peers) > 0 {
			t.Skip("a CUDA driver is present here: the measured path ran")
		}
		if len(v.Skipped) != 1 || !strings.HasPrefix(v.Skipped[0].Item, "peer 0000:00:0") || !strings.Contains(v.Skipped[0].Reason, "host-staged") {
			t.Fatalf("card %d skipped: %+v", i, v.Skipped)
		}
	}
	// One device, or devices without bus addresses: no pairs at all.
	vs = []*schema.CapabilityVector{{}}
	if err := peerLinks(context.Background(), devs[:1], vs); err != nil || len(vs[0].Skipped) != 0 {
		t.Fatalf("one device: %v %+v", err, vs[0].Skipped)
	}
}

package appraisal

import (
	"testing"

	"github.com/everycycle/appraise/internal/probe"
	"github.com/everycycle/appraise/schema"
)

// The box takes a host baseline once, and nothing a card carries.
func TestAddToBox(t *testing.T) {
	var box schema.BoxPayload
	h := &schema.HostBaseline{Threads: 2, ISA: "avx2+fma"}
	if err := addToBox(&box, &probe.Contribution{HostBaseline: h}); err != nil || box.HostBaseline != h {
		t.Fatalf("first baseline: %v, box has %v", err, box.HostBaseline)
	}
	if err := addToBox(&box, &probe.Contribution{HostBaseline: &schema.HostBaseline{}}); err == nil {
		t.Error("a second host baseline was accepted")
	}
	if err := addToBox(&box, &probe.Contribution{Skipped: []schema.Skip{{Probe: "x", Item: "y", Reason: "z"}}}); err == nil {
		t.Error("a card's figure was accepted into the box")
	}
	if err := addToBox(&box, nil); err != nil || box.HostBaseline != h {
		t.Errorf("nil contribution: %v", err)
	}
}

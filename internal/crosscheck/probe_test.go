package crosscheck

import (
	"context"
	"errors"
	"strings"
	"testing"
)

// The probe's contribution is the checks; a disagreement comes back with
// them and an error naming each figure outside its rule with both values.
func TestProbeContribution(t *testing.T) {
	cfg := config(t)
	p := Probe{Config: cfg, Tools: tools(t, cfg, "10de")}
	c, err := p.Run(context.Background(), Device{Target: h200, Ours: vector(1.02)})
	if err != nil || len(c.CrossChecks) != 4 {
		t.Fatalf("agreeing: %v, %+v", err, c)
	}
	c, err = p.Run(context.Background(), Device{Target: h200, Ours: vector(1.2)})
	if !errors.Is(err, ErrDisagree) || c == nil || len(c.CrossChecks) != 4 {
		t.Fatalf("disagreeing: %v, %+v", err, c)
	}
	if msg := err.Error(); strings.Count(msg, " vs ") != 3 || !strings.Contains(msg, "memory.bandwidth.triad") || !strings.Contains(msg, "rule within") {
		t.Errorf("message %q", msg)
	}
}

package cpu

import (
	"context"
	"testing"

	"github.com/everycycle/appraise/schema"
)

// The probe's contribution is a host baseline alone, every figure named
// by the probe and carrying a passed check, valid for the box report.
func TestProbeContribution(t *testing.T) {
	c, err := Probe{Options: Options{Effort: quickEffort}}.Run(context.Background(), Host{})
	if err != nil {
		t.Fatal(err)
	}
	h := c.HostBaseline
	if h == nil || len(c.Precisions) > 0 || len(c.Bandwidth) > 0 || len(c.Probes) > 0 {
		t.Fatalf("contribution %+v", c)
	}
	if err := schema.Validate(h); err != nil {
		t.Fatal(err)
	}
	if len(h.Bandwidth) != len(streamTable()) || len(h.Precisions) == 0 {
		t.Fatalf("%d bandwidth, %d precision entries", len(h.Bandwidth), len(h.Precisions))
	}
	for _, b := range h.Bandwidth {
		if b.Probe != ProbeName || !b.Check.Passed || b.Check.Elements == 0 || b.Check.Reference != "closed-form" {
			t.Errorf("%s: %+v", b.Kernel, b)
		}
	}
	for _, p := range h.Precisions {
		if p.Probe != ProbeName || !p.Check.Passed || p.Check.ErrorKind != "exact" {
			t.Errorf("%s %s: %+v", p.Operation, p.InputType, p)
		}
	}
}

// A check records whether its largest error was within its tolerance.
func TestCheckPassed(t *testing.T) {
	if c := check(10, 0, 0); !c.Passed || c.ErrorKind != "exact" {
		t.Errorf("exact: %+v", c)
	}
	if c := check(10, 2e-16, 4e-16); !c.Passed || c.ErrorKind != "relative" {
		t.Errorf("within: %+v", c)
	}
	if c := check(10, 5e-16, 4e-16); c.Passed {
		t.Errorf("outside: %+v", c)
	}
}

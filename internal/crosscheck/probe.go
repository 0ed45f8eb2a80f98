package crosscheck

import (
	"cmp"
	"context"
	"fmt"
	"strings"

	"github.com/everycycle/appraise/internal/probe"
	"github.com/everycycle/appraise/schema"
)

// Device is a device and the card measured on it so far.
type Device struct {
	Target Target
	Ours   schema.CapabilityVector
}

// Probe runs the tools Preflight found on a device (Run).
type Probe struct {
	Config Config
	Tools  Tools
}

var _ probe.Probe[Device] = Probe{}

// Name names the cross-check.
func (Probe) Name() string { return "crosscheck" }

// Version changes when what the cross-check runs or compares changes.
func (Probe) Version() string { return "1" }

// Run returns the tools' checks on d; with them, when a figure is outside
// its rule, an error wrapping ErrDisagree naming every such figure.
func (p Probe) Run(ctx context.Context, d Device) (*probe.Contribution, error) {
	checks, err := Run(ctx, p.Config, p.Tools, d.Target, d.Ours)
	if err != nil {
		return nil, err
	}
	c := &probe.Contribution{CrossChecks: checks}
	var bad []string
	for _, d := range Disagreements(checks) {
		rule := cmp.Or(d.Rule, schema.RuleWithin)
		if d.MaxRatio != nil {
			rule += fmt.Sprintf(" up to %.3fx", *d.MaxRatio)
		}
		bad = append(bad, fmt.Sprintf("%s %.4g vs %s %s %.4g (%+.1f%%; rule %s, tolerance %.1f%%)",
			d.Figure, d.Ours, d.Tool, d.ToolFigure, d.Theirs, d.RelativeDelta*100, rule, d.Tolerance*100))
	}
	if len(bad) > 0 {
		return c, fmt.Errorf("%w: %s", ErrDisagree, strings.Join(bad, "; "))
	}
	return c, nil
}

package crosscheck

import (
	"cmp"
	"context"
	"fmt"
	"strings"

	"github.com/everycycle/appraise/internal/probe"
	"github.com/everycycle/appraise/schema"
)

// Device is what the cross-check runs on: the device, and the card
// measured on it so far, whose figures the tools' are held against.
type Device struct {
	Target Target
	Ours   schema.CapabilityVector
}

// Probe runs the standard tools preflighted for a device's vendor on it
// and compares their figures with ours (Run).
type Probe struct {
	Config Config
	Tools  Tools
}

var _ probe.Probe[Device] = Probe{}

// Name names the cross-check.
func (Probe) Name() string { return "crosscheck" }

// Version changes whenever what the cross-check runs, or how it
// compares, changes.
func (Probe) Version() string { return "1" }

// Run runs the tools on d and returns their checks as the contribution.
// When a figure is outside its rule, the checks come back with an error
// wrapping ErrDisagree that names every such figure: the card may then
// be written as a draft with them, never signed.
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

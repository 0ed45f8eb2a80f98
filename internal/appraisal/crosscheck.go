package appraisal

import (
	"context"
	"errors"
	"fmt"

	"github.com/everycycle/appraise/internal/crosscheck"
	"github.com/everycycle/appraise/schema"
)

// crossCheckPlan is each device's started tools, or why none run.
type crossCheckPlan struct {
	cfg   crosscheck.Config
	tools map[string]crosscheck.Tools // by device address
	why   map[string]string           // by device address: why not
}

// planCrossChecks starts the tools for every device's vendor before any
// probe runs; with cfg.Required a device they cannot run on fails here.
func planCrossChecks(ctx context.Context, cfg *crosscheck.Config, devs []Candidate) (*crossCheckPlan, error) {
	p := &crossCheckPlan{tools: map[string]crosscheck.Tools{}, why: map[string]string{}}
	if cfg == nil {
		for _, c := range devs {
			p.why[c.Addr] = "no cross-check configured for this run"
		}
		return p, nil
	}
	p.cfg = *cfg
	byVendor := map[string]error{}
	toolsOf := map[string]crosscheck.Tools{}
	for _, c := range devs {
		if c.Adapter.Software {
			p.why[c.Addr] = "a software adapter: BabelStream and mixbench run on GPUs through CUDA, HIP or OpenCL and cannot target it"
			if cfg.Required {
				return nil, fmt.Errorf("--cross-check: %s (%s) is %s", c.Addr, c.Adapter.DisplayName(), p.why[c.Addr])
			}
			continue
		}
		vendor := vendorOf(c)
		err, seen := byVendor[vendor]
		if !seen {
			toolsOf[vendor], err = crosscheck.Preflight(ctx, *cfg, vendor)
			byVendor[vendor] = err
		}
		switch {
		case err != nil && cfg.Required:
			return nil, fmt.Errorf("--cross-check: %s: %w", c.Addr, err)
		case err != nil:
			p.why[c.Addr] = "no cross-check: " + err.Error()
		default:
			p.tools[c.Addr] = toolsOf[vendor]
		}
	}
	return p, nil
}

// vendorOf is c's PCI vendor id in lowercase hex.
func vendorOf(c Candidate) string {
	if c.PCI != nil {
		return fmt.Sprintf("%04x", c.PCI.VendorID)
	}
	return fmt.Sprintf("%04x", c.Adapter.VendorID)
}

// run cross-checks c, else records why not; a tool failure fails only when required.
func (p *crossCheckPlan) run(ctx context.Context, c Candidate, all []Candidate, v *schema.CapabilityVector) error {
	tools, ok := p.tools[c.Addr]
	if !ok {
		v.NotMeasured = append(v.NotMeasured, schema.Omission{Field: "cross_checks", Reason: clip(p.why[c.Addr])})
		return nil
	}
	err := crossCheck(ctx, p.cfg, tools, c, all, v)
	if err != nil && !errors.Is(err, crosscheck.ErrDisagree) && !p.cfg.Required {
		v.NotMeasured = append(v.NotMeasured, schema.Omission{Field: "cross_checks", Reason: clip("the cross-check failed: " + err.Error())})
		return nil
	}
	return err
}

// clip keeps a reason within the schema's 500 characters.
func clip(s string) string {
	if len(s) <= 500 {
		return s
	}
	return s[:496] + "…"
}

// crossCheck runs the tools on c and adds their checks to v; a figure
// outside its rule is an error wrapping crosscheck.ErrDisagree.
func crossCheck(ctx context.Context, cfg crosscheck.Config, tools crosscheck.Tools, c Candidate, all []Candidate, v *schema.CapabilityVector) error {
	t := crosscheck.Target{BusAddress: c.BusAddress, VendorID: vendorOf(c)}
	for _, o := range all {
		if o.PCI != nil && fmt.Sprintf("%04x", o.PCI.VendorID) == t.VendorID && o.PCI.BaseClass() == 0x03 {
			t.Visible = append(t.Visible, o.PCI.BDF.String())
		}
	}
	contrib, err := crosscheck.Probe{Config: cfg, Tools: tools}.Run(ctx, crosscheck.Device{Target: t, Ours: *v})
	if contrib != nil {
		if addErr := add(v, contrib); addErr != nil {
			return addErr
		}
	}
	return err
}

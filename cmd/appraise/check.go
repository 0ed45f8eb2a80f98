package main

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/everycycle/appraise/gpu"
	"github.com/everycycle/appraise/internal/appraisal"
	"github.com/everycycle/appraise/internal/export"
	"github.com/everycycle/appraise/internal/health"
	"github.com/everycycle/appraise/internal/probe/cublaslt"
	"github.com/everycycle/appraise/schema"
)

// checkCmd re-measures the devices signed cards describe and judges them
// against those cards. Its exit codes are Nagios style: 0 every device
// within its card, 1 a device degraded, 2 unknown (nothing comparable,
// a bad card or command line, a device missing or shared, out of budget).
type checkCmd struct {
	Against string        `required:"" placeholder:"CARD|DIR" help:"The signed card (or a run directory of cards) describing the devices to check; the newest card of each device is used."`
	Budget  time.Duration `default:"30s" help:"Time the whole re-measure may take; past it the check is unknown (exit 2)."`
	pinnedCards
	JSON     bool   `name:"json" help:"Print the verdicts as JSON."`
	CuBLASLt string `name:"cublaslt" placeholder:"FILE" help:"Path to libcublasLt.so for the card's vendor-library GEMM (else APPRAISE_CUBLASLT, else the search)."`
}

// Exit codes of 'appraise check' (see checkCmd).
const (
	checkOK      = 0
	checkFailing = 1
	checkUnknown = 2
)

// measurer re-measures the device a card describes; tests replace it.
type measurer interface {
	measure(ctx context.Context, card schema.CapabilityVector) (now *schema.CapabilityVector, notes []string, err error)
}

// checkResult is one device's verdict as --json prints it.
type checkResult struct {
	Card    string         `json:"card"`
	Device  string         `json:"device"`
	Verdict health.Verdict `json:"verdict"`
	Notes   []string       `json:"notes,omitempty"`
}

func (c *checkCmd) Run(ctx context.Context, e *env, g *globals) error {
	if c.Budget <= 0 {
		return withCode(checkUnknown, fmt.Errorf("--budget %s: want a positive duration", c.Budget), "")
	}
	inst, err := gpu.NewInstance()
	if err != nil {
		return unknown(err)
	}
	defer inst.Release()
	m := &deviceMeasurer{inst: inst, sysfs: e.getenv("APPRAISE_SYSFS_ROOT"), blas: cublaslt.LoadOptions{Path: c.CuBLASLt, Getenv: e.getenv}}
	return c.check(ctx, e, g, m)
}

// check verifies the cards, re-measures and judges each device, and prints the findings.
func (c *checkCmd) check(ctx context.Context, e *env, g *globals, m measurer) error {
	cards, err := c.load(e, g, []string{c.Against})
	if err != nil {
		return unknown(err)
	}
	devs, err := export.Devices(cards, true)
	if err != nil {
		return unknown(err)
	}
	ctx, cancel := context.WithTimeout(ctx, c.Budget)
	defer cancel()
	var results []checkResult
	worst := health.OK
	for _, card := range devs {
		id := card.Payload.Capability.Identity
		now, notes, err := m.measure(ctx, card.Payload.Capability)
		if errors.Is(err, context.DeadlineExceeded) || (err != nil && ctx.Err() == context.DeadlineExceeded) {
			return withCode(checkUnknown, fmt.Errorf("%s: the budget of %s ran out before the re-measure ended", device(id), c.Budget), "give a longer --budget")
		}
		if err != nil {
			return unknown(fmt.Errorf("%s: %w", device(id), err))
		}
		v := health.Judge(card.Payload.Capability, *now, health.BandsFor(id))
		results = append(results, checkResult{Card: card.Path, Device: device(id), Verdict: v, Notes: notes})
		if v.Status == health.Failing || (v.Status == health.Unknown && worst == health.OK) {
			worst = v.Status
		}
	}
	if c.JSON {
		if err := e.printJSON(struct {
			Status  health.Status `json:"status"`
			Devices []checkResult `json:"devices"`
		}{worst, results}); err != nil {
			return err
		}
	} else if err := printFindings(e, worst, results); err != nil {
		return err
	}
	switch worst {
	case health.Failing:
		return withCode(checkFailing, errors.New("check: a device is degraded, slower than its card or failing (the lines above say which)"), "")
	case health.Unknown:
		return withCode(checkUnknown, errors.New("check: unknown: nothing comparable was measured on a device (the lines above say what)"), "")
	}
	return nil
}

// printFindings writes a summary line, then a line per finding and note;
// the figures not re-measured share one note line per device.
func printFindings(e *env, worst health.Status, rs []checkResult) error {
	var b strings.Builder
	fmt.Fprintf(&b, "CHECK %s: %d device(s) against their cards\n", strings.ToUpper(worst.String()), len(rs))
	for _, r := range rs {
		var skipped []string
		for _, f := range r.Verdict.Findings {
			if f.Status == health.OK && f.Kind == health.KindMissing && f.Figure != "" {
				skipped = append(skipped, f.Figure)
				continue
			}
			fmt.Fprintf(&b, "%s: %s: %s\n", r.Device, strings.ToUpper(f.Status.String()), f.Message)
		}
		if len(skipped) > 0 {
			fmt.Fprintf(&b, "%s: NOTE: not re-measured, not compared: %s\n", r.Device, strings.Join(skipped, ", "))
		}
		for _, n := range r.Notes {
			fmt.Fprintf(&b, "%s: NOTE: %s\n", r.Device, n)
		}
	}
	_, err := fmt.Fprint(e.stdout, b.String())
	return err
}

// device names a card's device: its bus address, else its name.
func device(id schema.DeviceIdentity) string {
	if id.BusAddress != "" {
		return id.BusAddress
	}
	return id.Name
}

// unknown gives err the check's "unknown" exit, unless it is an interrupt.
func unknown(err error) error {
	if errors.Is(err, context.Canceled) {
		return err
	}
	return withCode(checkUnknown, err, "")
}

// deviceMeasurer finds the card's device on this machine and re-measures it.
type deviceMeasurer struct {
	inst  *gpu.Instance
	sysfs string
	blas  cublaslt.LoadOptions
}

func (m *deviceMeasurer) measure(ctx context.Context, card schema.CapabilityVector) (*schema.CapabilityVector, []string, error) {
	cands, _, err := appraisal.Discover(m.inst, card.Identity.Software, m.sysfs)
	if err != nil {
		return nil, nil, err
	}
	c, err := appraisal.FindCardDevice(cands, card.Identity, m.sysfs)
	if err != nil {
		return nil, nil, err
	}
	return appraisal.Remeasure(ctx, m.inst, c, card, appraisal.CheckOptions{BLAS: m.blas, SysfsRoot: m.sysfs})
}

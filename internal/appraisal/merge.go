package appraisal

import (
	"context"
	"fmt"

	"github.com/everycycle/appraise/internal/probe"
	"github.com/everycycle/appraise/schema"
)

// runProbes runs each of ps on d in turn into v (runProbe).
func runProbes[D any](ctx context.Context, w *worker, d D, ps []probe.Probe[D], v *schema.CapabilityVector) error {
	for _, p := range ps {
		if _, err := runProbe(ctx, w, d, p, v); err != nil {
			return err
		}
	}
	return nil
}

// runProbe runs p on d as w, adds what it measured to v and returns it.
func runProbe[D any](ctx context.Context, w *worker, d D, p probe.Probe[D], v *schema.CapabilityVector) (*probe.Contribution, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	var c *probe.Contribution
	err := w.onOwn(func() (err error) {
		w.stage(p.Name())
		if w.fault != nil {
			if err := w.fault(w.addr, p.Name()); err != nil {
				return err
			}
		}
		c, err = p.Run(ctx, d)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %w", ErrProbe, p.Name(), err)
	}
	w.ended(p.Name())
	v.Probes = appendProbe(v.Probes, schema.ProbeRecord{Name: p.Name(), Version: p.Version()})
	if err := add(v, c); err != nil {
		return nil, fmt.Errorf("%s: %w", p.Name(), err)
	}
	return c, nil
}

// add puts c's figures into v; a section set twice is an error.
func add(v *schema.CapabilityVector, c *probe.Contribution) error {
	if c == nil {
		return nil
	}
	for _, r := range c.Probes {
		v.Probes = appendProbe(v.Probes, r)
	}
	v.Precisions = append(v.Precisions, c.Precisions...)
	v.Roofline = append(v.Roofline, c.Roofline...)
	v.CrossChecks = append(v.CrossChecks, c.CrossChecks...)
	v.Skipped = append(v.Skipped, c.Skipped...)
	v.NotMeasured = append(v.NotMeasured, c.NotMeasured...)
	v.Environment.Libraries = append(v.Environment.Libraries, c.Libraries...)
	if len(c.Bandwidth) > 0 || c.Usable != nil || c.Integrity != nil {
		if v.Memory == nil {
			v.Memory = &schema.Memory{}
		}
		m := v.Memory
		m.Bandwidth = append(m.Bandwidth, c.Bandwidth...)
		if u := c.Usable; u != nil {
			if m.UsableBytes != nil {
				return errTwice("usable memory")
			}
			b := u.Bytes
			m.UsableBytes, m.UsableLimitedBy = &b, u.LimitedBy
		}
		if c.Integrity != nil {
			if m.Integrity != nil {
				return errTwice("memory integrity")
			}
			m.Integrity = c.Integrity
		}
	}
	if c.HostToDevice != nil || c.DeviceToHost != nil || len(c.Peers) > 0 {
		if v.Interconnect == nil {
			v.Interconnect = &schema.Interconnect{}
		}
		ic := v.Interconnect
		ic.Peers = append(ic.Peers, c.Peers...)
		if c.HostToDevice != nil {
			if ic.HostToDevice != nil {
				return errTwice("host to device")
			}
			ic.HostToDevice = c.HostToDevice
		}
		if c.DeviceToHost != nil {
			if ic.DeviceToHost != nil {
				return errTwice("device to host")
			}
			ic.DeviceToHost = c.DeviceToHost
		}
	}
	if c.Launch != nil {
		if v.LaunchOverhead != nil {
			return errTwice("launch overhead")
		}
		v.LaunchOverhead = c.Launch
	}
	if c.Thermal != nil {
		if v.Thermal != nil {
			return errTwice("thermal envelope")
		}
		v.Thermal = c.Thermal
	}
	if c.HostBaseline != nil {
		return fmt.Errorf("a host baseline belongs to the box report, not a card")
	}
	return nil
}

func errTwice(what string) error {
	return fmt.Errorf("%s measured twice: two probes set it", what)
}

// appendProbe adds a probe record once.
func appendProbe(ps []schema.ProbeRecord, r schema.ProbeRecord) []schema.ProbeRecord {
	for _, p := range ps {
		if p.Name == r.Name {
			return ps
		}
	}
	return append(ps, r)
}

package appraisal

import (
	"context"
	"errors"
	"fmt"
	"reflect"

	"github.com/everycycle/appraise/internal/probe"
	"github.com/everycycle/appraise/internal/probe/cpu"
	"github.com/everycycle/appraise/schema"
)

// hostBaseline measures the host CPU into box; a failure is listed, not fatal.
func hostBaseline(ctx context.Context, p probe.Probe[cpu.Host], box *schema.BoxPayload) error {
	c, err := p.Run(ctx, cpu.Host{})
	switch {
	case ctx.Err() != nil:
		return fmt.Errorf("%w: cpu baseline: %w", ErrProbe, errors.Join(ctx.Err(), err))
	case err != nil:
		box.NotMeasured = append(box.NotMeasured, schema.Omission{Field: "host_baseline", Reason: clip(err.Error())})
		return nil
	}
	return addToBox(box, c)
}

// addToBox puts c's host baseline and omissions into box, once; nil adds nothing.
func addToBox(box *schema.BoxPayload, c *probe.Contribution) error {
	if c == nil {
		return nil
	}
	rest := *c
	rest.HostBaseline, rest.NotMeasured = nil, nil
	switch {
	case !reflect.ValueOf(rest).IsZero():
		return fmt.Errorf("a card's figures belong to a card, not the box report")
	case c.HostBaseline != nil && box.HostBaseline != nil:
		return errTwice("host baseline")
	case c.HostBaseline != nil:
		box.HostBaseline = c.HostBaseline
	}
	box.NotMeasured = append(box.NotMeasured, c.NotMeasured...)
	return nil
}

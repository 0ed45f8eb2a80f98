package appraisal

import (
	"context"
	"fmt"
	"reflect"

	"github.com/everycycle/appraise/internal/probe"
	"github.com/everycycle/appraise/internal/probe/cpu"
	"github.com/everycycle/appraise/schema"
)

// hostBaseline measures the host CPU with all threads (the seed's CPU
// baseline) and puts it in box. It runs before the devices, with them
// idle.
func hostBaseline(ctx context.Context, quick bool, box *schema.BoxPayload) error {
	p := cpu.Probe{Options: cpu.Options{Quick: quick}}
	c, err := p.Run(ctx, cpu.Host{})
	if err != nil {
		return fmt.Errorf("%w: cpu baseline: %w", ErrProbe, err)
	}
	return addToBox(box, c)
}

// addToBox puts c's host baseline into box: the box report takes a host
// baseline and nothing else, once. A contribution with a card's figures
// is an error, as a host baseline is for a card (add). A nil c adds
// nothing.
func addToBox(box *schema.BoxPayload, c *probe.Contribution) error {
	if c == nil {
		return nil
	}
	rest := *c
	rest.HostBaseline = nil
	switch {
	case !reflect.ValueOf(rest).IsZero():
		return fmt.Errorf("a card's figures belong to a card, not the box report")
	case c.HostBaseline != nil && box.HostBaseline != nil:
		return errTwice("host baseline")
	case c.HostBaseline != nil:
		box.HostBaseline = c.HostBaseline
	}
	return nil
}

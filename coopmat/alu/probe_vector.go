package alu

import (
	"context"

	"github.com/everycycle/appraise/coopmat/vk"
	"github.com/everycycle/appraise/internal/probe"
	"github.com/everycycle/appraise/schema"
)

// VectorProbe is one vector-ALU kernel. It implements probe.Probe[*vk.Device].
type VectorProbe struct {
	name, item, op, counting string
	run                      func(context.Context, *vk.Device, Options) (vk.Result, error)
	// Options steer the kernel (invocations, steps, timing).
	Options Options
}

// VectorProbes are the vector-ALU probes in the card's order, steered by o.
func VectorProbes(o Options) []VectorProbe {
	dot := func(signed bool) func(context.Context, *vk.Device, Options) (vk.Result, error) {
		return func(ctx context.Context, d *vk.Device, o Options) (vk.Result, error) {
			return RunDot4(ctx, d, o, signed)
		}
	}
	return []VectorProbe{
		{vk.ProbeFMA64, "fma fp64", "fma", "fma=2", RunFMA64, o},
		{vk.ProbeFMA16, "fma fp16", "fma", "fma=2", RunFMA16, o},
		{vk.ProbeDot4I8, "dot4 int8", "dot4", "dot4=8", dot(true), o},
		{vk.ProbeDot4U8, "dot4 uint8", "dot4", "dot4=8", dot(false), o},
	}
}

// Name is the probe's name, e.g. "fma-fp64".
func (p VectorProbe) Name() string { return p.name }

// Version is ProbeVersion.
func (VectorProbe) Version() string { return vk.ProbeVersion }

// Item names what the probe measures as its skips name it, e.g. "fma fp64".
func (p VectorProbe) Item() string { return p.item }

// Run measures the kernel on d: a checked precision entry, or a skip where
// d lacks what the kernel needs; a failed check is an error.
func (p VectorProbe) Run(ctx context.Context, d *vk.Device) (*probe.Contribution, error) {
	r, err := p.run(ctx, d, p.Options)
	switch {
	case vk.IsSkip(err):
		return &probe.Contribution{Skipped: []schema.Skip{{Probe: p.name, Item: p.item, Reason: err.Error()}}}, nil
	case err != nil:
		return nil, err
	}
	return &probe.Contribution{
		Precisions: []schema.PrecisionThroughput{vk.Precision(r, p.op, p.counting)},
		Probes:     []schema.ProbeRecord{{Name: r.Probe, Version: vk.ProbeVersion}},
	}, nil
}

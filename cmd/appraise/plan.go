package main

import (
	"context"
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/everycycle/appraise/gpu"
	"github.com/everycycle/appraise/internal/appraisal"
)

// planCmd prints what an appraisal with the same flags would do, measuring nothing.
type planCmd struct {
	appraiseCmd `embed:""`
}

func (c *planCmd) Run(ctx context.Context, e *env) error {
	if err := c.checkOptions(); err != nil {
		return err
	}
	inst, err := gpu.NewInstance()
	if err != nil {
		return noDevice(err)
	}
	defer inst.Release()
	_, devs, err := c.devices(e, inst)
	if err != nil {
		return err
	}
	plans, err := appraisal.Plan(ctx, devs, c.options(e))
	if err != nil {
		return probeError(err)
	}
	if c.JSON {
		return e.printJSON(plans)
	}
	return writePlans(e, plans)
}

// writePlans prints each device's plan as a short table for people.
func writePlans(e *env, plans []appraisal.DevicePlan) error {
	for _, p := range plans {
		fmt.Fprintf(e.stdout, "%s  %s  (%s)\n", p.Address, p.Name, p.Mode)
		tw := tabwriter.NewWriter(e.stdout, 2, 4, 2, ' ', 0)
		fmt.Fprintf(tw, "  webgpu probes\t%s\n", strings.Join(p.WebGPU, ", "))
		if len(p.Vulkan) > 0 {
			fmt.Fprintf(tw, "  vulkan probes\t%s\n", strings.Join(p.Vulkan, ", "))
		}
		fmt.Fprintf(tw, "  memory limit\t%s\n", human(float64(p.MemoryLimitBytes), "bytes"))
		if p.GEMMSize > 0 {
			fmt.Fprintf(tw, "  gemm size\t%d³\n", p.GEMMSize)
		}
		fmt.Fprintf(tw, "  vendor blas\t%s\n", p.BLAS)
		soak := "none"
		if p.SoakS > 0 {
			soak = fmt.Sprintf("%gs of %s", p.SoakS, p.SoakLoad)
		}
		fmt.Fprintf(tw, "  soak\t%s\n", soak)
		fmt.Fprintf(tw, "  cross-check\t%s\n", p.CrossCheck)
		fmt.Fprintf(tw, "  schedule\t%s\n", p.Schedule)
		fmt.Fprintf(tw, "  expected\tabout %.0f s\n", p.ExpectedS)
		if err := tw.Flush(); err != nil {
			return err
		}
		for _, s := range p.Skipped {
			fmt.Fprintf(e.stdout, "  skipped: %s %s: %s\n", s.Probe, s.Item, s.Reason)
		}
		fmt.Fprintln(e.stdout)
	}
	_, err := fmt.Fprintf(e.stdout, "expected in all: about %.0f s, %s, plus the host baseline%s\n", appraisal.ExpectedWallS(plans), together(plans), peers(plans))
	return err
}

// together says how the plans' devices share the run's time.
func together(plans []appraisal.DevicePlan) string {
	switch {
	case len(plans) == 1:
		return "one device"
	case plans[0].Schedule == appraisal.ScheduleSerial:
		return fmt.Sprintf("%d devices in turn", len(plans))
	}
	return fmt.Sprintf("%d devices at once (their host link and launch in turn, not estimated; software adapters share the host's cores, so theirs add up)", len(plans))
}

// peers is what the estimate leaves out for a run of several devices.
func peers(plans []appraisal.DevicePlan) string {
	if len(plans) < 2 {
		return ""
	}
	return ", the host links at once and the peer links"
}

package appraisal

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/everycycle/appraise/coopmat"
	"github.com/everycycle/appraise/coopmat/alu"
	"github.com/everycycle/appraise/coopmat/link"
	"github.com/everycycle/appraise/coopmat/vk"
	"github.com/everycycle/appraise/gpu"
	"github.com/everycycle/appraise/internal/probe"
	"github.com/everycycle/appraise/schema"
)

// matchVulkan finds the raw-Vulkan device behind a; identical ones without a
// proof give nil, the indices it could be, and why.
func matchVulkan(a gpu.AdapterInfo, infos []vk.DeviceInfo, proven map[int]int) (*vk.DeviceInfo, []int, string) {
	var found []int
	for i, v := range infos {
		if v.VendorID == a.VendorID && v.DeviceID == a.DeviceID && v.Type == a.Type && strings.TrimSpace(v.Name) == strings.TrimSpace(a.DisplayName()) {
			found = append(found, i)
		}
	}
	if p, ok := proven[a.Index]; ok && slices.Contains(found, p) {
		return &infos[p], nil, ""
	}
	switch len(found) {
	case 1:
		return &infos[found[0]], nil, ""
	case 0:
		return nil, nil, "no raw-Vulkan device matches this adapter"
	}
	return nil, found, fmt.Sprintf("%d identical raw-Vulkan devices match this adapter and no memory-usage proof said which", len(found))
}

// vulkanProbes runs the raw-Vulkan probes as planned.
func (r *deviceRun) vulkanProbes(ctx context.Context) error {
	c, p, w, v := r.c, r.p, r.w, r.v
	if c.Vulkan == nil {
		for _, pr := range alu.VectorProbes(alu.Options{}) {
			v.Skipped = append(v.Skipped, schema.Skip{Probe: pr.Name(), Item: pr.Item(), Reason: c.vulkanWhy})
		}
		if p.coopMat {
			v.Skipped = append(v.Skipped, schema.Skip{Probe: vk.ProbeCoopMatGEMM, Item: "matrix engine", Reason: c.vulkanWhy})
		}
		return nil
	}
	d, err := vk.Open(c.Vulkan.Index)
	if err != nil {
		return err
	}
	defer d.Release()
	for _, pr := range alu.VectorProbes(alu.Options{Options: p.vulkan}) {
		w.stage("vulkan: " + pr.Item())
		if err := w.onOwn(func() error { return runVulkan(ctx, pr, d, v) }); err != nil {
			return err
		}
	}
	w.stage("vulkan: host link and launch")
	lp := link.HostLinkProbe{Options: p.transfer}
	lp.Options.Progress = w.lines("vulkan: ")
	if err := w.inTurn(ctx, func() error { return runVulkan(ctx, lp, d, v) }); err != nil {
		return err
	}
	if !p.coopMat {
		v.Skipped = append(v.Skipped, schema.Skip{Probe: vk.ProbeCoopMatGEMM, Item: "matrix engine", Reason: "not requested (pass --coopmat)"})
		return nil
	}
	w.stage("vulkan: cooperative-matrix GEMMs")
	cm := coopmat.CoopMatProbe{Options: coopmat.Options{Options: p.vulkan}, Software: c.Adapter.Software}
	return w.onOwn(func() error { return runVulkan(ctx, cm, d, v) })
}

// runVulkan runs p on d and adds what it measured to v.
func runVulkan(ctx context.Context, p probe.Probe[*vk.Device], d *vk.Device, v *schema.CapabilityVector) error {
	c, err := p.Run(ctx, d)
	if err != nil {
		return probeFailed(p.Name(), err)
	}
	return add(v, c)
}

// probeFailed wraps err in ErrProbe, naming the probe name once.
func probeFailed(name string, err error) error {
	if strings.HasPrefix(err.Error(), name+": ") {
		return fmt.Errorf("%w: %w", ErrProbe, err)
	}
	return fmt.Errorf("%w: %s: %w", ErrProbe, name, err)
}

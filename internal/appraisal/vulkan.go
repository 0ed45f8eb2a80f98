package appraisal

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/everycycle/appraise/coopmat"
	"github.com/everycycle/appraise/coopmat/alu"
	"github.com/everycycle/appraise/coopmat/vk"
	"github.com/everycycle/appraise/gpu"
	"github.com/everycycle/appraise/internal/probe"
	"github.com/everycycle/appraise/schema"
)

// matchVulkan finds the raw-Vulkan physical device behind a WebGPU
// adapter: the one with the same vendor, device, type and name (WebGPU's
// display name, since some drivers give the adapter a bare "0x0"), or the
// one a memory-usage proof tied it to (proven). When several match — two
// identical cards — and no proof says which, it returns nil, the indices
// it could be, and why: a guessed mapping would put one card's figures
// under another's identity.
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

// vulkanProbes runs the probes of the raw Vulkan module on the device
// behind c with the settings of its plan p: the vector kernels and the
// host link always (in the host's turn, in a concurrent run),
// cooperative-matrix GEMMs when asked.
func vulkanProbes(ctx context.Context, c Candidate, p DevicePlan, w *worker, v *schema.CapabilityVector, webT probe.LinkTrial) error {
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
	opts := p.vulkan
	for _, pr := range alu.VectorProbes(alu.Options{Options: opts}) {
		w.stage("vulkan: " + pr.Item())
		if err := runVulkan(ctx, w, pr, d, v); err != nil {
			return err
		}
	}
	w.stage("vulkan: host link and launch")
	to := p.transfer
	to.Progress = w.lines("vulkan: ")
	if err := w.inTurn(ctx, func() error { return vulkanLink(ctx, d, to, v, webT, c.Adapter.Software, w) }); err != nil {
		return err
	}
	if !p.coopMat {
		v.Skipped = append(v.Skipped, schema.Skip{Probe: vk.ProbeCoopMatGEMM, Item: "matrix engine", Reason: "not requested (pass --coopmat)"})
		return nil
	}
	w.stage("vulkan: cooperative-matrix GEMMs")
	return runVulkan(ctx, w, coopmat.CoopMatProbe{Options: coopmat.Options{Options: opts}, Software: c.Adapter.Software}, d, v)
}

// vulkanOptions are the raw-Vulkan probes' options for c: sizes for a
// software adapter or a quick GPU appraisal (the zero sizes are the
// probes' defaults), progress lines naming the device.
func vulkanOptions(c Candidate, o Options) vk.Options {
	opts := vk.Options{Progress: newWorker(c.Addr, o).lines("vulkan: ")}
	switch {
	case c.Adapter.Software:
		// The host's cores run the vector kernels, fp16 emulated (about
		// a tenth of the fp32 rate on lavapipe): 2^14 invocations of a
		// short chain keep an fp16 dispatch near one timed sample instead
		// of ten, and every form and fold guard measures in a fraction of
		// the time; the GEMMs run at 512³.
		opts.FMAInvocations, opts.FMASteps = 1<<14, softwareFMASteps
		opts.Size, opts.SearchSize = 512, 256
	case o.Quick:
		// A quick GPU appraisal keeps the vector kernels' full dispatch:
		// fewer workgroups than the device has compute units measure a
		// part of the device, not the device, and the card would sign
		// that part's rate as the device's. Its cooperative-matrix GEMMs
		// run at 4096³, as the vendor library's quick GEMMs (blasOptions),
		// a size the card names.
		opts.Size = quickGEMMSize
	}
	return opts
}

// runVulkan runs p on d and adds what it measured to v. Unlike runProbes
// it records no probe of its own: the contribution names the probes that
// produced a figure, and a probe that could only skip produced none.
func runVulkan(ctx context.Context, w *worker, p probe.Probe[*vk.Device], d *vk.Device, v *schema.CapabilityVector) error {
	var c *probe.Contribution
	err := w.onOwn(func() (err error) {
		c, err = p.Run(ctx, d)
		return err
	})
	if err != nil {
		return probeFailed(p.Name(), err)
	}
	return add(v, c)
}

// probeFailed wraps err, the failure of the probe named name, in ErrProbe,
// naming the probe once: a raw-Vulkan probe's own errors may begin with
// its name already.
func probeFailed(name string, err error) error {
	if strings.HasPrefix(err.Error(), name+": ") {
		return fmt.Errorf("%w: %w", ErrProbe, err)
	}
	return fmt.Errorf("%w: %s: %w", ErrProbe, name, err)
}

// softwareFMASteps is the steps per chain of a vector kernel's dispatch
// on a software adapter.
const softwareFMASteps = 128

// quickGEMMSize is the edge of a quick GPU appraisal's GEMMs, raw-Vulkan
// and vendor library alike.
const quickGEMMSize = 4096

package appraisal

import (
	"context"
	"fmt"

	"github.com/everycycle/appraise/coopmat/vk"
	"github.com/everycycle/appraise/gpu"
	"github.com/everycycle/appraise/internal/probe"
	"github.com/everycycle/appraise/internal/vkprobe/link"
	"github.com/everycycle/appraise/schema"
)

// webgpuAgain runs WebGPU probes again on a freshly opened device and
// returns the figures they measured, joined (the WebGPU device is closed
// while the raw-Vulkan probes run).
type webgpuAgain func(ctx context.Context, ps ...probe.Probe[*gpu.Device]) (*probe.Contribution, error)

// reopenWebGPU is c's webgpuAgain, opening the device with opts.
func reopenWebGPU(inst *gpu.Instance, c Candidate, opts gpu.Options, o Options) webgpuAgain {
	return func(ctx context.Context, ps ...probe.Probe[*gpu.Device]) (*probe.Contribution, error) {
		d, err := gpu.Open(inst, c.Adapter, opts)
		if err != nil {
			return nil, err
		}
		defer d.Release()
		var cs []*probe.Contribution
		for _, p := range ps {
			o.stage(c.Addr, p.Name()+" again (the path kept)")
			got, err := p.Run(ctx, d)
			if err != nil {
				return nil, fmt.Errorf("%w: %s (re-measured): %w", ErrProbe, p.Name(), err)
			}
			cs = append(cs, got)
		}
		return joinLink(cs...), nil
	}
}

// takeLink removes the host link and the launch figures from v and
// returns them as a contribution (with no probe records: v keeps those).
func takeLink(v *schema.CapabilityVector) *probe.Contribution {
	c := &probe.Contribution{Launch: v.LaunchOverhead}
	v.LaunchOverhead = nil
	if ic := v.Interconnect; ic != nil {
		c.HostToDevice, c.DeviceToHost = ic.HostToDevice, ic.DeviceToHost
		ic.HostToDevice, ic.DeviceToHost = nil, nil
	}
	return c
}

// joinLink joins the host link and launch figures of cs, a later one's
// over an earlier one's, and their probe records.
func joinLink(cs ...*probe.Contribution) *probe.Contribution {
	out := &probe.Contribution{}
	for _, c := range cs {
		if c.HostToDevice != nil {
			out.HostToDevice = c.HostToDevice
		}
		if c.DeviceToHost != nil {
			out.DeviceToHost = c.DeviceToHost
		}
		if c.Launch != nil {
			out.Launch = c.Launch
		}
		out.Probes = append(out.Probes, c.Probes...)
	}
	return out
}

// softwareTransferBytes is the raw-Vulkan host link's transfer on a
// software adapter: its "device memory" is host RAM and every route copies
// and checks each byte on the host's cores, so the default 256 MiB
// transfers made this the costliest step of a software appraisal. 64 MiB
// still exceeds a host's caches (128 MiB move per transfer).
const softwareTransferBytes = 64 << 20

// transferOptions are the raw-Vulkan host link's options for c: fewer
// samples on a software adapter or with --quick, smaller transfers and
// warm-ups as short as WebGPU's (gpu.SoftwareWarmUp) on a software
// adapter, and with --quick on a software adapter no bulk routes through
// the device's kernel. There a kernel's pull or push is the host's cores
// running the JIT'd shader's loads and stores over the same RAM that the
// copy command's memcpy and the host's own stores move: the same bytes
// through more instructions each, so it has been a fraction of the
// fastest route's rate and never the path kept (docs/performance.md,
// issue 15), and the split route runs that kernel beside the host's
// stores. The copy commands and the host's stores are still measured,
// checked and re-measured; the card names the path kept, and a full run
// tries every route.
func transferOptions(c Candidate, o Options) link.TransferOptions {
	to := link.TransferOptions{Quick: c.Adapter.Software || o.Quick}
	if c.Adapter.Software {
		to.Bytes, to.Warmup = softwareTransferBytes, gpu.SoftwareWarmUp
		to.NoKernelRoutes = o.Quick
	}
	return to
}

// linkChoice says, figure by figure, whether raw Vulkan's first
// measurement beat WebGPU's: bandwidth higher, latency lower.
type linkChoice struct{ h2d, d2h, dispatch, upload bool }

// chooseLink is the rule between WebGPU's and raw Vulkan's first host
// link and launch figures (web and vk): for each figure the faster path,
// and raw Vulkan's for a figure WebGPU did not measure.
func chooseLink(web, vk *probe.Contribution) linkChoice {
	var ch linkChoice
	ch.h2d = web.HostToDevice == nil || vk.HostToDevice.BytesPerS.Median > web.HostToDevice.BytesPerS.Median
	ch.d2h = web.DeviceToHost == nil || vk.DeviceToHost.BytesPerS.Median > web.DeviceToHost.BytesPerS.Median
	l := web.Launch
	ch.dispatch = l == nil || vk.Launch.EmptyDispatchS.Median < l.EmptyDispatchS.Median
	ch.upload = l == nil || vk.Launch.Upload1MiBS.Median < l.Upload1MiBS.Median
	return ch
}

func (c linkChoice) anyVulkan() bool { return c.h2d || c.d2h || c.dispatch || c.upload }
func (c linkChoice) anyWebGPU() bool { return !c.h2d || !c.d2h || !c.dispatch || !c.upload }

// vulkanLink measures the host link, the 1 MiB upload and the empty
// dispatch round trip again through raw Vulkan (link.HostLinkProbe) and
// keeps, figure by figure, the path that was faster (chooseLink). The
// larger of two medians is biased upward (each carries its noise), so the
// kept path is measured once more (that path alone, with no trial of the
// others) and that second figure is the one signed; the other path's
// first figure stays beside it, named (mergeLink). v holds WebGPU's first
// figures on entry; they are taken out, and the kept ones added.
func vulkanLink(ctx context.Context, d *vk.Device, to link.TransferOptions, v *schema.CapabilityVector, again webgpuAgain) error {
	p := link.HostLinkProbe{Options: to}
	first, paths, err := p.Measure(ctx, d)
	if err != nil {
		return fmt.Errorf("%w: %s: %w", ErrProbe, p.Name(), err)
	}
	webFirst := takeLink(v)
	ch := chooseLink(webFirst, first)
	kept := first
	if ch.anyVulkan() {
		if kept, err = p.Again(paths).Run(ctx, d); err != nil {
			return fmt.Errorf("%w: %s: %w", ErrProbe, p.Name(), err)
		}
	}
	webAgain := webFirst
	if ch.anyWebGPU() {
		var ps []probe.Probe[*gpu.Device]
		if !ch.h2d || !ch.d2h {
			ps = append(ps, gpu.HostLinkProbe{})
		}
		if !ch.dispatch || !ch.upload {
			ps = append(ps, gpu.LaunchProbe{})
		}
		if webAgain, err = again(ctx, ps...); err != nil {
			return err
		}
	}
	return add(v, mergeLink(webFirst, webAgain, first, kept, ch))
}

// mergeLink is the contribution of the kept figures: for each figure, the
// re-measured one of the chosen path (webAgain for WebGPU, vkKept for
// Vulkan), with the other path's first figure beside it, and the
// raw-Vulkan probes that produced a kept figure.
func mergeLink(webFirst, webAgain, vkFirst, vkKept *probe.Contribution, ch linkChoice) *probe.Contribution {
	out := &probe.Contribution{}
	used := false
	pick := func(vulkan bool, firstWeb, againWeb, vkFirst, vkKept *schema.Transfer) *schema.Transfer {
		if vulkan {
			used = true
			t := *vkKept
			t.OtherPath = firstWeb
			return &t
		}
		t := *againWeb
		t.OtherPath = vkFirst
		return &t
	}
	out.HostToDevice = pick(ch.h2d, webFirst.HostToDevice, webAgain.HostToDevice, vkFirst.HostToDevice, vkKept.HostToDevice)
	out.DeviceToHost = pick(ch.d2h, webFirst.DeviceToHost, webAgain.DeviceToHost, vkFirst.DeviceToHost, vkKept.DeviceToHost)
	if used {
		out.Probes = append(out.Probes, schema.ProbeRecord{Name: link.ProbeHostLink, Version: vk.ProbeVersion})
	}
	out.Launch = mergeLaunch(webFirst.Launch, webAgain.Launch, vkFirst.Launch, vkKept.Launch, ch)
	if ch.dispatch || ch.upload {
		out.Probes = append(out.Probes, schema.ProbeRecord{Name: link.ProbeLaunch, Version: vk.ProbeVersion})
	}
	return out
}

// mergeLaunch builds the launch figures: each from the chosen path's
// re-measurement (webAgain for WebGPU, vkKept for Vulkan), the other path's
// first figure in OtherPaths. webFirst is nil when WebGPU measured none.
func mergeLaunch(webFirst, webAgain, vkFirst, vkKept *schema.LaunchOverhead, ch linkChoice) *schema.LaunchOverhead {
	l := &schema.LaunchOverhead{Probe: vkKept.Probe, Timing: vkKept.Timing, Check: vkKept.Check}
	if webAgain != nil && (!ch.dispatch || !ch.upload) {
		l.Check = webAgain.Check
		if !ch.dispatch && !ch.upload {
			l.Timing = webAgain.Timing
		}
	}
	other := func(figure string, s schema.Stat, path, probe string) {
		if webFirst != nil {
			l.OtherPaths = append(l.OtherPaths, schema.OtherLatency{Figure: figure, LatencyS: s, Path: path, Probe: probe})
		}
	}
	if ch.dispatch {
		l.EmptyDispatchS, l.DispatchPath = vkKept.EmptyDispatchS, vkKept.DispatchPath
		if webFirst != nil {
			other("empty_dispatch_s", webFirst.EmptyDispatchS, webFirst.DispatchPath, webFirst.Probe)
		}
	} else {
		l.EmptyDispatchS, l.DispatchPath, l.Probe = webAgain.EmptyDispatchS, webAgain.DispatchPath, webAgain.Probe
		other("empty_dispatch_s", vkFirst.EmptyDispatchS, vkFirst.DispatchPath, vkFirst.Probe)
	}
	uploadProbe := vkKept.Probe
	if ch.upload {
		l.Upload1MiBS, l.UploadPath = vkKept.Upload1MiBS, vkKept.UploadPath
		if webFirst != nil {
			other("upload_1mib_s", webFirst.Upload1MiBS, webFirst.UploadPath, uploadProbeOf(webFirst))
		}
	} else {
		l.Upload1MiBS, l.UploadPath, uploadProbe = webAgain.Upload1MiBS, webAgain.UploadPath, uploadProbeOf(webAgain)
		other("upload_1mib_s", vkFirst.Upload1MiBS, vkFirst.UploadPath, vkFirst.Probe)
	}
	if uploadProbe != l.Probe {
		l.UploadProbe = uploadProbe
	}
	return l
}

// uploadProbeOf names the probe behind l's upload figure.
func uploadProbeOf(l *schema.LaunchOverhead) string {
	if l.UploadProbe != "" {
		return l.UploadProbe
	}
	return l.Probe
}

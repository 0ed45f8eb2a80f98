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

// reopenWebGPU is c's webgpuAgain, opening the device with opts, as w.
func reopenWebGPU(inst *gpu.Instance, c Candidate, opts gpu.Options, w *worker) webgpuAgain {
	return func(ctx context.Context, ps ...probe.Probe[*gpu.Device]) (*probe.Contribution, error) {
		d, err := gpu.Open(inst, c.Adapter, opts)
		if err != nil {
			return nil, err
		}
		defer d.Release()
		var cs []*probe.Contribution
		for _, p := range ps {
			w.stage(p.Name() + " again (the path kept)")
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
// adapter, and with --quick on a software adapter no candidate through
// the device's kernel. There a kernel's pull or push is the host's cores
// running the JIT'd shader's loads and stores over the same RAM that the
// copy command's memcpy and the host's own stores move: the same bytes
// through more instructions each, so it has been a fraction of the
// fastest route's rate and never the path kept (docs/performance.md,
// issue 15). The copy commands and the host's stores are still measured
// and checked; the card names the path kept, and a full run tries the
// kernel too.
func transferOptions(c Candidate, o Options) link.TransferOptions {
	to := link.TransferOptions{Quick: c.Adapter.Software || o.Quick}
	if c.Adapter.Software {
		to.Bytes, to.Warmup = softwareTransferBytes, gpu.SoftwareWarmUp
		to.NoKernelRoutes = o.Quick
	}
	return to
}

// vkTrial is raw Vulkan's kept paths as their families' trials measured
// them: the figures chooseLink weighs against WebGPU's. The figures
// signed for raw Vulkan are the kept paths' samples taken after the
// trials, so a choice made on these does not bias them.
type vkTrial struct{ h2d, d2h, dispatch, upload float64 }

// trialOf is r's vkTrial.
func trialOf(r link.TransferResult) vkTrial {
	return vkTrial{h2d: r.HostToDevice.Trial.Median, d2h: r.DeviceToHost.Trial.Median,
		dispatch: r.EmptySubmit.Trial.Median, upload: r.Upload1MiBPinned.Trial.Median}
}

// linkChoice says, figure by figure, whether raw Vulkan's path beat
// WebGPU's: bandwidth higher, latency lower.
type linkChoice struct{ h2d, d2h, dispatch, upload bool }

// chooseLink is the rule between WebGPU's host link and launch figures
// (web) and raw Vulkan's trials (vk): for each figure the faster path,
// and raw Vulkan's for a figure WebGPU did not measure.
func chooseLink(web *probe.Contribution, vk vkTrial) linkChoice {
	var ch linkChoice
	ch.h2d = web.HostToDevice == nil || vk.h2d > web.HostToDevice.BytesPerS.Median
	ch.d2h = web.DeviceToHost == nil || vk.d2h > web.DeviceToHost.BytesPerS.Median
	l := web.Launch
	ch.dispatch = l == nil || vk.dispatch < l.EmptyDispatchS.Median
	ch.upload = l == nil || vk.upload < l.Upload1MiBS.Median
	return ch
}

func (c linkChoice) anyWebGPU() bool { return !c.h2d || !c.d2h || !c.dispatch || !c.upload }

// vulkanLink measures the host link, the pinned 1 MiB upload and the
// empty dispatch round trip through raw Vulkan (link.HostLinkProbe: each
// family a short trial of its candidates, the kept path sampled afresh)
// and keeps, figure by figure, the faster of that and WebGPU's figure
// (chooseLink, on raw Vulkan's trial). A kept raw-Vulkan figure is its
// fresh samples; a kept WebGPU figure was itself weighed in the choice
// (the larger of two medians is biased upward), so WebGPU measures it
// once more and that figure is signed. The figures not kept stay beside
// the kept one, named (mergeLink). v holds WebGPU's figures on entry;
// they are taken out, and the kept ones added.
func vulkanLink(ctx context.Context, d *vk.Device, to link.TransferOptions, v *schema.CapabilityVector, again webgpuAgain) error {
	p := link.HostLinkProbe{Options: to}
	vkc, r, err := p.Measure(ctx, d)
	if err != nil {
		return fmt.Errorf("%w: %s: %w", ErrProbe, p.Name(), err)
	}
	webFirst := takeLink(v)
	ch := chooseLink(webFirst, trialOf(r))
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
	return add(v, mergeLink(webFirst, webAgain, vkc, ch))
}

// mergeLink is the contribution of the kept figures: for each figure raw
// Vulkan's (vl, its other candidates chained behind it) or WebGPU's
// re-measurement (webAgain), with the paths not kept beside it — WebGPU's
// first figure, or raw Vulkan's kept and other paths — and the
// raw-Vulkan probes that produced a kept figure.
func mergeLink(webFirst, webAgain, vl *probe.Contribution, ch linkChoice) *probe.Contribution {
	out := &probe.Contribution{}
	pick := func(vulkan bool, firstWeb, againWeb, vkT *schema.Transfer) *schema.Transfer {
		if vulkan {
			t := *vkT
			if firstWeb != nil {
				w := *firstWeb
				w.OtherPath = vkT.OtherPath
				t.OtherPath = &w
			}
			return &t
		}
		t := *againWeb
		t.OtherPath = vkT
		return &t
	}
	out.HostToDevice = pick(ch.h2d, webFirst.HostToDevice, webAgain.HostToDevice, vl.HostToDevice)
	out.DeviceToHost = pick(ch.d2h, webFirst.DeviceToHost, webAgain.DeviceToHost, vl.DeviceToHost)
	if ch.h2d || ch.d2h {
		out.Probes = append(out.Probes, schema.ProbeRecord{Name: link.ProbeHostLink, Version: vk.ProbeVersion})
	}
	out.Launch = mergeLaunch(webFirst.Launch, webAgain.Launch, vl.Launch, ch)
	if ch.dispatch || ch.upload {
		out.Probes = append(out.Probes, schema.ProbeRecord{Name: link.ProbeLaunch, Version: vk.ProbeVersion})
	}
	return out
}

// mergeLaunch builds the launch figures: each from raw Vulkan (vk) or
// WebGPU's re-measurement (webAgain), the paths not kept in OtherPaths:
// WebGPU's first figure and raw Vulkan's other candidates, or raw
// Vulkan's kept path and its other candidates. webFirst is nil when
// WebGPU measured none.
func mergeLaunch(webFirst, webAgain, vk *schema.LaunchOverhead, ch linkChoice) *schema.LaunchOverhead {
	l := &schema.LaunchOverhead{Probe: vk.Probe, Timing: vk.Timing, Check: vk.Check}
	if !ch.dispatch || !ch.upload {
		l.Check = webAgain.Check
		if !ch.dispatch && !ch.upload {
			l.Timing = webAgain.Timing
		}
	}
	other := func(figure string, s schema.Stat, path, probe string) {
		l.OtherPaths = append(l.OtherPaths, schema.OtherLatency{Figure: figure, LatencyS: s, Path: path, Probe: probe})
	}
	vkOthers := func(figure string) {
		for _, o := range vk.OtherPaths {
			if o.Figure == figure {
				l.OtherPaths = append(l.OtherPaths, o)
			}
		}
	}
	if ch.dispatch {
		l.EmptyDispatchS, l.DispatchPath = vk.EmptyDispatchS, vk.DispatchPath
		if webFirst != nil {
			other("empty_dispatch_s", webFirst.EmptyDispatchS, webFirst.DispatchPath, webFirst.Probe)
		}
	} else {
		l.EmptyDispatchS, l.DispatchPath, l.Probe = webAgain.EmptyDispatchS, webAgain.DispatchPath, webAgain.Probe
		other("empty_dispatch_s", vk.EmptyDispatchS, vk.DispatchPath, vk.Probe)
	}
	vkOthers("empty_dispatch_s")
	uploadProbe := vk.Probe
	if ch.upload {
		l.Upload1MiBS, l.UploadPath = vk.Upload1MiBS, vk.UploadPath
		if webFirst != nil {
			other("upload_1mib_s", webFirst.Upload1MiBS, webFirst.UploadPath, uploadProbeOf(webFirst))
		}
	} else {
		l.Upload1MiBS, l.UploadPath, uploadProbe = webAgain.Upload1MiBS, webAgain.UploadPath, uploadProbeOf(webAgain)
		other("upload_1mib_s", vk.Upload1MiBS, vk.UploadPath, vk.Probe)
	}
	vkOthers("upload_1mib_s")
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

package appraisal

import (
	"context"
	"errors"

	"github.com/everycycle/appraise/coopmat/link"
	"github.com/everycycle/appraise/coopmat/vk"
	"github.com/everycycle/appraise/gpu"
	"github.com/everycycle/appraise/internal/probe"
	"github.com/everycycle/appraise/schema"
)

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

// linkChoice says, figure by figure, whether raw Vulkan's path beat
// WebGPU's: bandwidth higher, latency lower.
type linkChoice struct{ h2d, d2h, dispatch, upload bool }

// chooseLink is the rule between WebGPU's host link and launch figures
// (web, with its trial webT) and raw Vulkan's (trial vkT): for each figure
// the path whose trial was faster, and raw Vulkan's for a figure WebGPU
// did not measure. Both sides are weighed on their trials, never on the
// figures signed (probe.LinkTrial).
func chooseLink(web *probe.Contribution, webT, vkT probe.LinkTrial) linkChoice {
	faster := func(measured bool, webX, vkX float64, higher bool) bool {
		switch {
		case !measured || !(webX > 0):
			return true
		case higher:
			return vkX > webX
		default:
			return vkX < webX
		}
	}
	l := web.Launch
	return linkChoice{
		h2d:      faster(web.HostToDevice != nil, webT.HostToDevice, vkT.HostToDevice, true),
		d2h:      faster(web.DeviceToHost != nil, webT.DeviceToHost, vkT.DeviceToHost, true),
		dispatch: faster(l != nil, webT.EmptyDispatchS, vkT.EmptyDispatchS, false),
		upload:   faster(l != nil, webT.Upload1MiBS, vkT.Upload1MiBS, false),
	}
}

// vulkanLink measures the host link, the pinned 1 MiB upload and the
// empty dispatch round trip through raw Vulkan (link.HostLinkProbe: each
// family a short trial of its candidates, the kept path sampled afresh)
// and keeps, figure by figure, the faster of that and WebGPU's figure
// (chooseLink, weighing raw Vulkan's trial against WebGPU's, webT). Each
// API's signed figure is its kept path's samples, taken after its own
// trial, so neither was weighed in the choice and the larger of two
// medians does not bias what is signed. The figures not kept stay beside
// the kept one, named (mergeLink), and the path rules hold the kept one
// against them (settleLink). v holds WebGPU's figures on entry; they are
// taken out, and the kept ones added.
func vulkanLink(ctx context.Context, d *vk.Device, to link.TransferOptions, v *schema.CapabilityVector, webT probe.LinkTrial, software bool, w *worker) error {
	p := link.HostLinkProbe{Options: to}
	measure := func() (*probe.Contribution, probe.LinkTrial, error) {
		vkc, err := p.Run(ctx, d)
		if err != nil {
			return nil, probe.LinkTrial{}, probeFailed(p.Name(), err)
		}
		var vkT probe.LinkTrial
		if vkc.Trial != nil {
			vkT = *vkc.Trial
		}
		return vkc, vkT, nil
	}
	return settleLink(v, webT, software, measure, func(bad []schema.ConsistencyCheck) {
		w.stage("consistency: disagreeing: " + checksString(bad))
		w.stage("consistency: " + p.Name() + " again")
	})
}

// settleLink merges WebGPU's host-link and launch figures, taken out of
// v, with raw Vulkan's (measure), holds the kept figures to the path rules
// and adds them and the rules' checks to v. When a rule disagrees, it
// says so (again) and measures raw Vulkan once more, weighed against the
// same WebGPU figures, as settleConsistency does for every rule: what still
// disagrees fails a GPU's card (ErrInconsistent) and is recorded on a
// software adapter's.
func settleLink(v *schema.CapabilityVector, webT probe.LinkTrial, software bool,
	measure func() (*probe.Contribution, probe.LinkTrial, error), again func(bad []schema.ConsistencyCheck)) error {
	web := takeLink(v)
	kept := func() (*probe.Contribution, error) {
		vkc, vkT, err := measure()
		if err != nil {
			return nil, err
		}
		return mergeLink(web, vkc, chooseLink(web, webT, vkT)), nil
	}
	c, err := kept()
	if err != nil {
		return err
	}
	links := linkFigures(c)
	err = settleConsistency(links, software, func(_ []figureSource, bad []schema.ConsistencyCheck) error {
		again(bad)
		next, err := kept()
		if err != nil {
			return err
		}
		c, *links = next, *linkFigures(next)
		return nil
	})
	if aerr := add(v, c); aerr != nil {
		return errors.Join(err, aerr)
	}
	v.Consistency = append(v.Consistency, links.Consistency...)
	return err
}

// linkFigures is a vector holding c's host-link and launch figures alone,
// for the path rules (the other rules find none of theirs there).
func linkFigures(c *probe.Contribution) *schema.CapabilityVector {
	return &schema.CapabilityVector{LaunchOverhead: c.Launch,
		Interconnect: &schema.Interconnect{HostToDevice: c.HostToDevice, DeviceToHost: c.DeviceToHost}}
}

// mergeLink is the contribution of the kept figures: for each figure raw
// Vulkan's (vl, its other candidates chained behind it) or WebGPU's (web),
// with the paths not kept beside it — WebGPU's figure, or raw Vulkan's
// kept and other paths — and the raw-Vulkan probes that produced a kept
// figure.
func mergeLink(web, vl *probe.Contribution, ch linkChoice) *probe.Contribution {
	out := &probe.Contribution{}
	pick := func(vulkan bool, webT, vkT *schema.Transfer) *schema.Transfer {
		if vulkan {
			t := *vkT
			if webT != nil {
				w := *webT
				w.OtherPath = vkT.OtherPath
				t.OtherPath = &w
			}
			return &t
		}
		t := *webT
		t.OtherPath = vkT
		return &t
	}
	out.HostToDevice = pick(ch.h2d, web.HostToDevice, vl.HostToDevice)
	out.DeviceToHost = pick(ch.d2h, web.DeviceToHost, vl.DeviceToHost)
	if ch.h2d || ch.d2h {
		out.Probes = append(out.Probes, schema.ProbeRecord{Name: link.ProbeHostLink, Version: vk.ProbeVersion})
	}
	out.Launch = mergeLaunch(web.Launch, vl.Launch, ch)
	if ch.dispatch || ch.upload {
		out.Probes = append(out.Probes, schema.ProbeRecord{Name: link.ProbeLaunch, Version: vk.ProbeVersion})
	}
	return out
}

// mergeLaunch builds the launch figures: each from raw Vulkan (vk) or
// WebGPU (web), the paths not kept in OtherPaths: WebGPU's figure and raw
// Vulkan's other candidates, or raw Vulkan's kept path and its other
// candidates. web is nil when WebGPU measured none.
func mergeLaunch(web, vk *schema.LaunchOverhead, ch linkChoice) *schema.LaunchOverhead {
	l := &schema.LaunchOverhead{Probe: vk.Probe, Timing: vk.Timing, Check: vk.Check}
	if !ch.dispatch || !ch.upload {
		l.Check = web.Check
		if !ch.dispatch && !ch.upload {
			l.Timing = web.Timing
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
		if web != nil {
			other(emptyDispatch, web.EmptyDispatchS, web.DispatchPath, web.Probe)
		}
	} else {
		l.EmptyDispatchS, l.DispatchPath, l.Probe = web.EmptyDispatchS, web.DispatchPath, web.Probe
		other(emptyDispatch, vk.EmptyDispatchS, vk.DispatchPath, vk.Probe)
	}
	vkOthers(emptyDispatch)
	uploadProbe := vk.Probe
	if ch.upload {
		l.Upload1MiBS, l.UploadPath = vk.Upload1MiBS, vk.UploadPath
		if web != nil {
			other(upload1MiB, web.Upload1MiBS, web.UploadPath, uploadProbeOf(web))
		}
	} else {
		l.Upload1MiBS, l.UploadPath, uploadProbe = web.Upload1MiBS, web.UploadPath, uploadProbeOf(web)
		other(upload1MiB, vk.Upload1MiBS, vk.UploadPath, vk.Probe)
	}
	vkOthers(upload1MiB)
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

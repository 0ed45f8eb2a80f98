package appraisal

import (
	"context"
	"fmt"

	"github.com/everycycle/appraise/internal/probe"
	"github.com/everycycle/appraise/internal/probe/vulkan"
	"github.com/everycycle/appraise/internal/probe/webgpu"
	"github.com/everycycle/appraise/schema"
)

// Probe names of the raw-Vulkan host-link and launch figures.
const (
	probeVulkanHostLink = "vulkan-hostlink"
	probeVulkanLaunch   = "vulkan-launch"
)

// webgpuAgain runs WebGPU probes again on a freshly opened device and
// returns the figures they measured (the WebGPU device is closed while
// the raw-Vulkan probes run).
type webgpuAgain func(ctx context.Context, ps ...probe.Probe[*webgpu.Device]) (*schema.CapabilityVector, error)

// reopenWebGPU is c's webgpuAgain.
func reopenWebGPU(inst *webgpu.Instance, c Candidate, o Options) webgpuAgain {
	return func(ctx context.Context, ps ...probe.Probe[*webgpu.Device]) (*schema.CapabilityVector, error) {
		d, err := webgpu.Open(inst, c.Adapter, deviceOptions(c, o))
		if err != nil {
			return nil, err
		}
		defer d.Release()
		v := &schema.CapabilityVector{}
		for _, p := range ps {
			o.stage(c.Addr, p.Name()+" again (the path kept)")
			got, err := p.Run(ctx, d)
			if err != nil {
				return nil, fmt.Errorf("%w: %s (re-measured): %w", ErrProbe, p.Name(), err)
			}
			if err := add(v, got); err != nil {
				return nil, err
			}
		}
		return v, nil
	}
}

// softwareTransferBytes is the raw-Vulkan host link's transfer on a
// software adapter: its "device memory" is host RAM and every route copies
// and checks each byte on the host's cores, so the default 256 MiB
// transfers made this the costliest step of a software appraisal. 64 MiB
// still exceeds a host's caches (128 MiB move per transfer).
const softwareTransferBytes = 64 << 20

// transferOptions are the raw-Vulkan host link's options for c: fewer
// samples on a software adapter or with --quick, smaller transfers and
// warm-ups as short as WebGPU's (webgpu.SoftwareWarmUp) on a software
// adapter.
func transferOptions(c Candidate, o Options) vulkan.TransferOptions {
	to := vulkan.TransferOptions{Quick: c.Adapter.Software || o.Quick}
	if c.Adapter.Software {
		to.Bytes, to.Warmup = softwareTransferBytes, webgpu.SoftwareWarmUp
	}
	return to
}

// linkChoice says, figure by figure, whether raw Vulkan's first
// measurement beat WebGPU's (which the WebGPU probes measured before):
// bandwidth higher, latency lower. A figure WebGPU did not measure goes
// to Vulkan.
type linkChoice struct{ h2d, d2h, dispatch, upload bool }

func chooseLink(v *schema.CapabilityVector, r vulkan.TransferResult) linkChoice {
	var ch linkChoice
	ic := v.Interconnect
	ch.h2d = ic == nil || ic.HostToDevice == nil || r.HostToDevice.BytesPerS.Median > ic.HostToDevice.BytesPerS.Median
	ch.d2h = ic == nil || ic.DeviceToHost == nil || r.DeviceToHost.BytesPerS.Median > ic.DeviceToHost.BytesPerS.Median
	l := v.LaunchOverhead
	ch.dispatch = l == nil || r.EmptySubmit.Median < l.EmptyDispatchS.Median
	ch.upload = l == nil || r.Upload1MiBPinned.Median < l.Upload1MiBS.Median
	return ch
}

func (c linkChoice) anyVulkan() bool { return c.h2d || c.d2h || c.dispatch || c.upload }
func (c linkChoice) anyWebGPU() bool { return !c.h2d || !c.d2h || !c.dispatch || !c.upload }

// vulkanLink measures the host link, the 1 MiB upload and the empty
// dispatch round trip again through raw Vulkan (vulkan.MeasureTransfer)
// and keeps, figure by figure, the path that was faster. The larger of
// two medians is biased upward (each carries its noise), so the kept
// path is measured once more (that path alone, with no trial of the
// others) and that second figure is the one signed;
// the other path's figure stays beside it, named (Transfer.OtherPath,
// LaunchOverhead.OtherPaths). The 1 MiB upload compared is raw Vulkan's
// pinned one: the data already in mapped host memory, as in WebGPU's
// mapped staging and in the peers' pinned copies.
func vulkanLink(ctx context.Context, d *vulkan.Device, to vulkan.TransferOptions, v *schema.CapabilityVector, again webgpuAgain) error {
	measure := func(to vulkan.TransferOptions) (vulkan.TransferResult, error) {
		r, err := vulkan.MeasureTransfer(ctx, d, to)
		if err != nil {
			return r, fmt.Errorf("%w: %s: %w", ErrProbe, probeVulkanHostLink, err)
		}
		return r, nil
	}
	first, err := measure(to)
	if err != nil {
		return err
	}
	ch := chooseLink(v, first)
	kept := first
	if ch.anyVulkan() {
		again := to
		paths := first.Paths()
		again.Only = &paths
		if kept, err = measure(again); err != nil {
			return err
		}
	}
	web := &schema.CapabilityVector{Interconnect: v.Interconnect, LaunchOverhead: v.LaunchOverhead}
	if ch.anyWebGPU() {
		var ps []probe.Probe[*webgpu.Device]
		if !ch.h2d || !ch.d2h {
			ps = append(ps, webgpu.HostLinkProbe{})
		}
		if !ch.dispatch || !ch.upload {
			ps = append(ps, webgpu.LaunchProbe{})
		}
		if web, err = again(ctx, ps...); err != nil {
			return err
		}
	}
	mergeLink(v, web, first, kept, ch)
	return nil
}

// mergeLink writes the kept figures into v: for each figure, the
// re-measured one of the chosen path (web for WebGPU, kept for Vulkan),
// with the other path's first figure beside it. v holds WebGPU's first
// figures on entry.
func mergeLink(v, web *schema.CapabilityVector, first, kept vulkan.TransferResult, ch linkChoice) {
	tr := func(r vulkan.TransferResult, dir vulkan.Direction) *schema.Transfer {
		return &schema.Transfer{BytesPerS: dir.BytesPerS, TransferBytes: r.TransferBytes, Path: dir.Path, Probe: probeVulkanHostLink, Timing: dir.Timing,
			Check: schema.Check{Reference: "cpu", Elements: r.CheckedWords, ErrorKind: "exact", Passed: true}}
	}
	if v.Interconnect == nil {
		v.Interconnect = &schema.Interconnect{}
	}
	ic := v.Interconnect
	h2dFirst, d2hFirst := ic.HostToDevice, ic.DeviceToHost
	used := false
	pick := func(vulkan bool, firstWeb, againWeb *schema.Transfer, vkFirst, vkKept vulkan.Direction) *schema.Transfer {
		if vulkan {
			used = true
			t := tr(kept, vkKept)
			t.OtherPath = firstWeb
			return t
		}
		t := *againWeb
		t.OtherPath = tr(first, vkFirst)
		return &t
	}
	var h2dAgain, d2hAgain *schema.Transfer
	if web.Interconnect != nil {
		h2dAgain, d2hAgain = web.Interconnect.HostToDevice, web.Interconnect.DeviceToHost
	}
	ic.HostToDevice = pick(ch.h2d, h2dFirst, h2dAgain, first.HostToDevice, kept.HostToDevice)
	ic.DeviceToHost = pick(ch.d2h, d2hFirst, d2hAgain, first.DeviceToHost, kept.DeviceToHost)
	if used {
		v.Probes = appendProbe(v.Probes, schema.ProbeRecord{Name: probeVulkanHostLink, Version: "1"})
	}
	v.LaunchOverhead = mergeLaunch(v.LaunchOverhead, web.LaunchOverhead, first, kept, ch)
	if ch.dispatch || ch.upload {
		v.Probes = appendProbe(v.Probes, schema.ProbeRecord{Name: probeVulkanLaunch, Version: "1"})
	}
}

// mergeLaunch builds the launch figures: each from the chosen path's
// re-measurement (webAgain for WebGPU, kept for Vulkan), the other path's
// first figure in OtherPaths. webFirst is nil when WebGPU measured none.
func mergeLaunch(webFirst, webAgain *schema.LaunchOverhead, first, kept vulkan.TransferResult, ch linkChoice) *schema.LaunchOverhead {
	l := &schema.LaunchOverhead{Probe: probeVulkanLaunch, Timing: schema.TimingHostWallClock,
		Check: schema.Check{Reference: "closed-form", Elements: kept.CheckedWords, ErrorKind: "exact", Passed: true}}
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
		l.EmptyDispatchS, l.DispatchPath = kept.EmptySubmit, kept.SubmitPath
		if webFirst != nil {
			other("empty_dispatch_s", webFirst.EmptyDispatchS, webFirst.DispatchPath, webFirst.Probe)
		}
	} else {
		l.EmptyDispatchS, l.DispatchPath, l.Probe = webAgain.EmptyDispatchS, webAgain.DispatchPath, webAgain.Probe
		other("empty_dispatch_s", first.EmptySubmit, first.SubmitPath, probeVulkanLaunch)
	}
	uploadProbe := probeVulkanLaunch
	if ch.upload {
		l.Upload1MiBS, l.UploadPath = kept.Upload1MiBPinned, kept.UploadPinnedPath
		if webFirst != nil {
			other("upload_1mib_s", webFirst.Upload1MiBS, webFirst.UploadPath, uploadProbeOf(webFirst))
		}
	} else {
		l.Upload1MiBS, l.UploadPath, uploadProbe = webAgain.Upload1MiBS, webAgain.UploadPath, uploadProbeOf(webAgain)
		other("upload_1mib_s", first.Upload1MiBPinned, first.UploadPinnedPath, probeVulkanLaunch)
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

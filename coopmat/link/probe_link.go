package link

import (
	"context"

	vulkan "github.com/everycycle/appraise/coopmat/vk"
	"github.com/everycycle/appraise/internal/probe"
	"github.com/everycycle/appraise/schema"
)

// Probe names of the raw-Vulkan host-link and launch figures.
const (
	ProbeHostLink = "vulkan-hostlink"
	ProbeLaunch   = "vulkan-launch"
)

// HostLinkProbe measures the host link both ways, the 1 MiB upload from
// pinned memory (the data already in mapped host memory, as in WebGPU's
// mapped staging and the peers' pinned copies) and the empty dispatch's
// round trip through raw Vulkan (MeasureTransfer). Its contribution holds
// the host link (probe ProbeHostLink) and the launch figures (probe
// ProbeLaunch), each on its family's kept path with the other candidates'
// trial figures beside it. It implements probe.Probe[*Device].
type HostLinkProbe struct {
	Options TransferOptions
}

// Name is ProbeHostLink.
func (HostLinkProbe) Name() string { return ProbeHostLink }

// Version is ProbeVersion.
func (HostLinkProbe) Version() string { return vulkan.ProbeVersion }

// Run measures on d; every figure carries the exact check of the words it
// moved, and the contribution carries the kept paths' trial figures
// (probe.LinkTrial), which decide between this probe's paths and another
// backend's. A mismatch is an error wrapping ErrCheckFailed.
func (p HostLinkProbe) Run(ctx context.Context, d *vulkan.Device) (*probe.Contribution, error) {
	r, err := MeasureTransfer(ctx, d, p.Options)
	if err != nil {
		return nil, err
	}
	return linkContribution(r), nil
}

// linkContribution is r as the card records it: each kept figure with the
// other candidates' trial figures beside it (a transfer's other_path
// chain; the launch's other_paths).
func linkContribution(r TransferResult) *probe.Contribution {
	check := schema.Check{Reference: "cpu", Elements: r.CheckedWords, ErrorKind: "exact", Passed: true}
	tr := func(f Family) *schema.Transfer {
		t := &schema.Transfer{BytesPerS: f.Stat, TransferBytes: r.TransferBytes, Path: f.Path, Probe: ProbeHostLink, Timing: f.Timing, Check: check}
		at := t
		for _, o := range f.Others {
			at.OtherPath = &schema.Transfer{BytesPerS: o.Trial, TransferBytes: r.TransferBytes, Path: o.Path, Probe: ProbeHostLink, Timing: o.Timing, Check: check}
			at = at.OtherPath
		}
		return t
	}
	// The dispatch counter must equal the dispatches and every upload
	// read back word for word: exact checks against a closed form.
	l := &schema.LaunchOverhead{EmptyDispatchS: r.EmptySubmit.Stat, DispatchPath: r.EmptySubmit.Path,
		Upload1MiBS: r.Upload1MiBPinned.Stat, UploadPath: r.Upload1MiBPinned.Path, Probe: ProbeLaunch, Timing: schema.TimingHostWallClock,
		Check: schema.Check{Reference: "closed-form", Elements: r.CheckedWords, ErrorKind: "exact", Passed: true}}
	l.OtherPaths = append(otherLatencies("empty_dispatch_s", r.EmptySubmit), otherLatencies("upload_1mib_s", r.Upload1MiBPinned)...)
	return &probe.Contribution{
		HostToDevice: tr(r.HostToDevice),
		DeviceToHost: tr(r.DeviceToHost),
		Launch:       l,
		Probes:       []schema.ProbeRecord{{Name: ProbeHostLink, Version: vulkan.ProbeVersion}, {Name: ProbeLaunch, Version: vulkan.ProbeVersion}},
		Trial: &probe.LinkTrial{HostToDevice: r.HostToDevice.Trial.Median, DeviceToHost: r.DeviceToHost.Trial.Median,
			EmptyDispatchS: r.EmptySubmit.Trial.Median, Upload1MiBS: r.Upload1MiBPinned.Trial.Median},
	}
}

// otherLatencies are the other candidates of f, a latency family, as the
// card names them beside figure.
func otherLatencies(figure string, f Family) []schema.OtherLatency {
	var ls []schema.OtherLatency
	for _, o := range f.Others {
		ls = append(ls, schema.OtherLatency{Figure: figure, LatencyS: o.Trial, Path: o.Path, Probe: ProbeLaunch})
	}
	return ls
}

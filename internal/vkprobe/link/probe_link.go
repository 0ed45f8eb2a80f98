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

// HostLinkProbe measures the host link both ways, the 1 MiB upload and the
// empty dispatch's round trip through raw Vulkan (MeasureTransfer). Its
// contribution holds the host link (probe ProbeHostLink) and the launch
// figures (probe ProbeLaunch): the dispatch round trip and the 1 MiB upload
// from pinned memory, the data already in mapped host memory as in
// WebGPU's mapped staging and the peers' pinned copies. It implements
// probe.Probe[*Device].
type HostLinkProbe struct {
	// Options steer the measurement; Options.Only measures each figure on
	// one path alone (see Again).
	Options TransferOptions
}

// Name is ProbeHostLink.
func (HostLinkProbe) Name() string { return ProbeHostLink }

// Version is ProbeVersion.
func (HostLinkProbe) Version() string { return vulkan.ProbeVersion }

// Run measures on d; every figure carries the exact check of the words it
// moved. A mismatch is an error wrapping ErrCheckFailed.
func (p HostLinkProbe) Run(ctx context.Context, d *vulkan.Device) (*probe.Contribution, error) {
	c, _, err := p.Measure(ctx, d)
	return c, err
}

// Measure is Run that also returns the path each figure was measured on,
// for Again.
func (p HostLinkProbe) Measure(ctx context.Context, d *vulkan.Device) (*probe.Contribution, TransferPaths, error) {
	r, err := MeasureTransfer(ctx, d, p.Options)
	if err != nil {
		return nil, TransferPaths{}, err
	}
	return linkContribution(r), r.Paths(), nil
}

// Again is p measuring each figure on the path paths names alone, with no
// trial of the others: the re-measurement of the paths a first Measure
// chose (the larger of two medians is biased upward, so a chosen figure is
// measured once more before it is signed).
func (p HostLinkProbe) Again(paths TransferPaths) HostLinkProbe {
	p.Options.Only = &paths
	return p
}

// linkContribution is r as the card records it.
func linkContribution(r TransferResult) *probe.Contribution {
	tr := func(dir Direction) *schema.Transfer {
		return &schema.Transfer{BytesPerS: dir.BytesPerS, TransferBytes: r.TransferBytes, Path: dir.Path, Probe: ProbeHostLink, Timing: dir.Timing,
			Check: schema.Check{Reference: "cpu", Elements: r.CheckedWords, ErrorKind: "exact", Passed: true}}
	}
	return &probe.Contribution{
		HostToDevice: tr(r.HostToDevice),
		DeviceToHost: tr(r.DeviceToHost),
		// The dispatch counter must equal the dispatches and every upload
		// read back word for word: exact checks against a closed form.
		Launch: &schema.LaunchOverhead{EmptyDispatchS: r.EmptySubmit, DispatchPath: r.SubmitPath,
			Upload1MiBS: r.Upload1MiBPinned, UploadPath: r.UploadPinnedPath, Probe: ProbeLaunch, Timing: schema.TimingHostWallClock,
			Check: schema.Check{Reference: "closed-form", Elements: r.CheckedWords, ErrorKind: "exact", Passed: true}},
		Probes: []schema.ProbeRecord{{Name: ProbeHostLink, Version: vulkan.ProbeVersion}, {Name: ProbeLaunch, Version: vulkan.ProbeVersion}},
	}
}

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

// Version is the version of the host-link and launch probes.
const Version = "3"

// HostLinkProbe is the probe.Probe[*Device] of MeasureTransfer: the host
// link and, unless Options.BulkOnly, the launch figures.
type HostLinkProbe struct {
	Options TransferOptions
}

// Name is ProbeHostLink.
func (HostLinkProbe) Name() string { return ProbeHostLink }

// Version is Version.
func (HostLinkProbe) Version() string { return Version }

// Run measures on d; a mismatch is an error wrapping ErrCheckFailed.
func (p HostLinkProbe) Run(ctx context.Context, d *vulkan.Device) (*probe.Contribution, error) {
	r, err := MeasureTransfer(ctx, d, p.Options)
	if err != nil {
		return nil, err
	}
	return linkContribution(r, p.Options.BulkOnly), nil
}

// linkContribution is r as the card records it; bulkOnly omits launch.
func linkContribution(r TransferResult, bulkOnly bool) *probe.Contribution {
	check := schema.Check{Reference: "cpu", Elements: r.CheckedWords, ErrorKind: "exact", Passed: true}
	tr := func(f Family) *schema.Transfer {
		return &schema.Transfer{BytesPerS: f.Stat, TransferBytes: r.TransferBytes, Path: f.Path, Probe: ProbeHostLink, Timing: f.Timing, Check: check}
	}
	c := &probe.Contribution{HostToDevice: tr(r.HostToDevice), DeviceToHost: tr(r.DeviceToHost),
		Probes: []schema.ProbeRecord{{Name: ProbeHostLink, Version: Version}}}
	if bulkOnly {
		return c
	}
	// Exact checks: the dispatch counter and every upload's words.
	c.Launch = &schema.LaunchOverhead{EmptyDispatchS: r.EmptySubmit.Stat, DispatchPath: r.EmptySubmit.Path,
		Upload1MiBS: r.Upload1MiBPinned.Stat, UploadPath: r.Upload1MiBPinned.Path, Probe: ProbeLaunch, Timing: schema.TimingHostWallClock,
		Check: schema.Check{Reference: "closed-form", Elements: r.CheckedWords, ErrorKind: "exact", Passed: true}}
	c.Probes = append(c.Probes, schema.ProbeRecord{Name: ProbeLaunch, Version: Version})
	return c
}

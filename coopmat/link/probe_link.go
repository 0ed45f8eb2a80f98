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

// HostLinkProbe measures the host link both ways, the 1 MiB upload from
// pinned memory and the empty dispatch's round trip through raw Vulkan
// (MeasureTransfer). Its contribution holds the host link (probe
// ProbeHostLink) and, unless Options.BulkOnly, the launch figures (probe
// ProbeLaunch), each on its family's kept path. It implements
// probe.Probe[*Device].
type HostLinkProbe struct {
	Options TransferOptions
}

// Name is ProbeHostLink.
func (HostLinkProbe) Name() string { return ProbeHostLink }

// Version is Version.
func (HostLinkProbe) Version() string { return Version }

// Run measures on d; every figure carries the exact check of the words it
// moved. A mismatch is an error wrapping ErrCheckFailed.
func (p HostLinkProbe) Run(ctx context.Context, d *vulkan.Device) (*probe.Contribution, error) {
	r, err := MeasureTransfer(ctx, d, p.Options)
	if err != nil {
		return nil, err
	}
	return linkContribution(r, p.Options.BulkOnly), nil
}

// linkContribution is r as the card records it, each figure on its kept
// path; bulkOnly leaves the launch figures out.
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
	// The dispatch counter must equal the dispatches and every upload
	// read back word for word: exact checks against a closed form.
	c.Launch = &schema.LaunchOverhead{EmptyDispatchS: r.EmptySubmit.Stat, DispatchPath: r.EmptySubmit.Path,
		Upload1MiBS: r.Upload1MiBPinned.Stat, UploadPath: r.Upload1MiBPinned.Path, Probe: ProbeLaunch, Timing: schema.TimingHostWallClock,
		Check: schema.Check{Reference: "closed-form", Elements: r.CheckedWords, ErrorKind: "exact", Passed: true}}
	c.Probes = append(c.Probes, schema.ProbeRecord{Name: ProbeLaunch, Version: Version})
	return c
}

package appraisal

import (
	"context"
	"fmt"

	"github.com/everycycle/appraise/coopmat"
	"github.com/everycycle/appraise/schema"
)

// Probe names of the raw-Vulkan host-link and launch figures.
const (
	probeVulkanHostLink = "vulkan-hostlink"
	probeVulkanLaunch   = "vulkan-launch"
)

// vulkanLink measures the host link, the 1 MiB upload and the empty
// dispatch round trip again through raw Vulkan (coopmat.MeasureTransfer)
// and keeps, figure by figure, the better of the two checked paths: the
// card states what the device can do, and each figure's path and probe
// say how it was reached. WebGPU's own figures were measured first by
// the WebGPU probes.
func vulkanLink(ctx context.Context, d *coopmat.Device, quick bool, v *schema.CapabilityVector) error {
	r, err := coopmat.MeasureTransfer(ctx, d, coopmat.TransferOptions{Quick: quick})
	if err != nil {
		return fmt.Errorf("%w: %s: %w", ErrProbe, probeVulkanHostLink, err)
	}
	used := false
	tr := func(dir coopmat.Direction) *schema.Transfer {
		return &schema.Transfer{BytesPerS: dir.BytesPerS, TransferBytes: r.TransferBytes, Path: dir.Path, Probe: probeVulkanHostLink, Timing: dir.Timing,
			Check: schema.Check{Reference: "cpu", Elements: r.CheckedWords, ErrorKind: "exact", Passed: true}}
	}
	if v.Interconnect == nil {
		v.Interconnect = &schema.Interconnect{}
	}
	ic := v.Interconnect
	for _, side := range []struct {
		dst **schema.Transfer
		dir coopmat.Direction
	}{{&ic.HostToDevice, r.HostToDevice}, {&ic.DeviceToHost, r.DeviceToHost}} {
		if *side.dst == nil || side.dir.BytesPerS.Median > (*side.dst).BytesPerS.Median {
			*side.dst, used = tr(side.dir), true
		}
	}
	if used {
		v.Probes = appendProbe(v.Probes, probeVulkanHostLink)
	}
	if fasterLaunch(v, r) {
		v.Probes = appendProbe(v.Probes, probeVulkanLaunch)
	}
	return nil
}

// fasterLaunch replaces the launch figures with r's where they are lower
// (times: lower is better) and says whether it used any. The 1 MiB upload
// compared is r's pinned one: the data already in mapped host memory, as
// in WebGPU's mapped staging and in the peers' pinned copies.
func fasterLaunch(v *schema.CapabilityVector, r coopmat.TransferResult) bool {
	l := v.LaunchOverhead
	if l == nil {
		l = &schema.LaunchOverhead{Probe: probeVulkanLaunch, Timing: schema.TimingHostWallClock,
			Check:          schema.Check{Reference: "closed-form", Elements: r.CheckedWords, ErrorKind: "exact", Passed: true},
			EmptyDispatchS: r.EmptySubmit, DispatchPath: r.SubmitPath, Upload1MiBS: r.Upload1MiBPinned, UploadPath: r.UploadPinnedPath}
		v.LaunchOverhead = l
		return true
	}
	dispatch := r.EmptySubmit.Median < l.EmptyDispatchS.Median
	upload := r.Upload1MiBPinned.Median < l.Upload1MiBS.Median
	uploadProbe := l.Probe
	if l.UploadProbe != "" {
		uploadProbe = l.UploadProbe
	}
	if upload {
		l.Upload1MiBS, l.UploadPath, uploadProbe = r.Upload1MiBPinned, r.UploadPinnedPath, probeVulkanLaunch
	}
	if dispatch {
		l.EmptyDispatchS, l.DispatchPath, l.Probe = r.EmptySubmit, r.SubmitPath, probeVulkanLaunch
	}
	l.UploadProbe = ""
	if uploadProbe != l.Probe {
		l.UploadProbe = uploadProbe
	}
	if dispatch || upload {
		l.Timing = schema.TimingHostWallClock
	}
	return dispatch || upload
}

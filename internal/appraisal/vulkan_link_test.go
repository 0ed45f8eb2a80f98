package appraisal

import (
	"testing"

	"github.com/everycycle/appraise/coopmat"
	"github.com/everycycle/appraise/schema"
)

func TestFasterLaunchKeepsTheBetterFigure(t *testing.T) {
	st := func(m float64) schema.Stat { return schema.Stat{Samples: 101, Median: m, Min: m, Max: m} }
	r := coopmat.TransferResult{EmptySubmit: st(18e-6), SubmitPath: "vulkan-dispatch.fence-spin",
		Upload1MiBPinned: st(70e-6), UploadPinnedPath: "vulkan-pinned-copy.host-cached.fence-spin", CheckedWords: 1 << 20}
	webgpu := func(dispatch, upload float64) *schema.CapabilityVector {
		return &schema.CapabilityVector{LaunchOverhead: &schema.LaunchOverhead{EmptyDispatchS: st(dispatch), Upload1MiBS: st(upload),
			DispatchPath: "dispatch.poll-spin", UploadPath: "mapped-staging.poll-spin", Probe: "webgpu-launch", Timing: schema.TimingHostWallClock,
			Check: schema.Check{Reference: "closed-form", Elements: 100, ErrorKind: "exact", Passed: true}}}
	}
	for _, tc := range []struct {
		name                     string
		v                        *schema.CapabilityVector
		used                     bool
		probe, uploadProbe, path string
	}{
		{"vulkan faster at both", webgpu(36e-6, 79e-6), true, "vulkan-launch", "", "vulkan-pinned-copy.host-cached.fence-spin"},
		{"vulkan faster at dispatch only", webgpu(36e-6, 60e-6), true, "vulkan-launch", "webgpu-launch", "mapped-staging.poll-spin"},
		{"vulkan faster at upload only", webgpu(10e-6, 79e-6), true, "webgpu-launch", "vulkan-launch", "vulkan-pinned-copy.host-cached.fence-spin"},
		{"webgpu faster at both", webgpu(10e-6, 60e-6), false, "webgpu-launch", "", "mapped-staging.poll-spin"},
		{"no webgpu figures", &schema.CapabilityVector{}, true, "vulkan-launch", "", "vulkan-pinned-copy.host-cached.fence-spin"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			used := fasterLaunch(tc.v, r)
			l := tc.v.LaunchOverhead
			if used != tc.used || l.Probe != tc.probe || l.UploadProbe != tc.uploadProbe || l.UploadPath != tc.path {
				t.Errorf("used %t, probe %q, upload probe %q, upload path %q", used, l.Probe, l.UploadProbe, l.UploadPath)
			}
			if err := schema.Validate(*l); err != nil {
				t.Error(err)
			}
		})
	}
}

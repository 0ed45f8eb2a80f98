package appraisal

import (
	"testing"

	"github.com/everycycle/appraise/internal/probe/vulkan"
	"github.com/everycycle/appraise/schema"
)

func st(m float64) schema.Stat { return schema.Stat{Samples: 101, Median: m, Min: m, Max: m} }

// vulkanRun is a raw-Vulkan transfer result with the given figures.
func vulkanRun(h2d, dispatch, upload float64) vulkan.TransferResult {
	dir := func(b float64) vulkan.Direction {
		return vulkan.Direction{BytesPerS: st(b), Path: "vulkan-copy.host-cached.compute", Timing: schema.TimingGPUTimestamp}
	}
	return vulkan.TransferResult{HostToDevice: dir(h2d), DeviceToHost: dir(h2d), TransferBytes: 256 << 20,
		EmptySubmit: st(dispatch), SubmitPath: "vulkan-dispatch.fence-spin",
		Upload1MiBPinned: st(upload), UploadPinnedPath: "vulkan-pinned-copy.host-cached.fence-spin", CheckedWords: 1 << 20}
}

// webgpuRun is the WebGPU probes' figures.
func webgpuRun(h2d, dispatch, upload float64) *schema.CapabilityVector {
	t := func() *schema.Transfer {
		return &schema.Transfer{BytesPerS: st(h2d), TransferBytes: 256 << 20, Path: "mapped-staging", Probe: "webgpu-hostlink",
			Timing: schema.TimingQueueWallClock, Check: schema.Check{Reference: "cpu", Elements: 1, ErrorKind: "exact", Passed: true}}
	}
	return &schema.CapabilityVector{Interconnect: &schema.Interconnect{HostToDevice: t(), DeviceToHost: t()},
		LaunchOverhead: &schema.LaunchOverhead{EmptyDispatchS: st(dispatch), Upload1MiBS: st(upload),
			DispatchPath: "dispatch.poll-spin", UploadPath: "mapped-staging.poll-spin", Probe: "webgpu-launch", Timing: schema.TimingHostWallClock,
			Check: schema.Check{Reference: "closed-form", Elements: 100, ErrorKind: "exact", Passed: true}}}
}

// TestKeptPathRemeasured: the path is chosen on the first measurements;
// the figure signed is the chosen path's second measurement, never the
// first (the larger of two medians is biased upward); the other path's
// first figure stays beside it, named.
func TestKeptPathRemeasured(t *testing.T) {
	for _, tc := range []struct {
		name                      string
		web                       *schema.CapabilityVector
		vkFirst                   vulkan.TransferResult
		wantH2D                   float64 // the signed figure
		wantOtherH2D              string  // probe of the other path
		wantDispatch, wantUpload  float64
		wantProbe, wantUploadProb string
	}{
		{"vulkan faster everywhere", webgpuRun(20e9, 36e-6, 79e-6), vulkanRun(25e9, 18e-6, 70e-6), 24e9, "webgpu-hostlink", 19e-6, 71e-6, "vulkan-launch", ""},
		{"webgpu faster everywhere", webgpuRun(26e9, 10e-6, 60e-6), vulkanRun(25e9, 18e-6, 70e-6), 25.5e9, "vulkan-hostlink", 11e-6, 61e-6, "webgpu-launch", ""},
		{"mixed", webgpuRun(26e9, 36e-6, 60e-6), vulkanRun(25e9, 18e-6, 70e-6), 25.5e9, "vulkan-hostlink", 19e-6, 61e-6, "vulkan-launch", "webgpu-launch"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v := tc.web
			ch := chooseLink(v, tc.vkFirst)
			// The second measurements: each path a little different.
			kept := vulkanRun(24e9, 19e-6, 71e-6)
			again := webgpuRun(25.5e9, 11e-6, 61e-6)
			web := v
			if ch.anyWebGPU() {
				web = again
			}
			firstWeb := *v.Interconnect.HostToDevice
			mergeLink(v, web, tc.vkFirst, kept, ch)
			h := v.Interconnect.HostToDevice
			if h.BytesPerS.Median != tc.wantH2D || h.OtherPath == nil || h.OtherPath.Probe != tc.wantOtherH2D {
				t.Fatalf("host → device %g (other %+v), want %g beside %s", h.BytesPerS.Median, h.OtherPath, tc.wantH2D, tc.wantOtherH2D)
			}
			if want := map[string]float64{"webgpu-hostlink": firstWeb.BytesPerS.Median, "vulkan-hostlink": tc.vkFirst.HostToDevice.BytesPerS.Median}[tc.wantOtherH2D]; h.OtherPath.BytesPerS.Median != want {
				t.Errorf("other path %g, want its first figure %g", h.OtherPath.BytesPerS.Median, want)
			}
			l := v.LaunchOverhead
			if l.EmptyDispatchS.Median != tc.wantDispatch || l.Upload1MiBS.Median != tc.wantUpload || l.Probe != tc.wantProbe || l.UploadProbe != tc.wantUploadProb {
				t.Errorf("launch %+v", l)
			}
			if len(l.OtherPaths) != 2 {
				t.Errorf("other paths %+v", l.OtherPaths)
			}
			for _, o := range l.OtherPaths {
				if o.Probe == l.Probe && o.Figure == "empty_dispatch_s" {
					t.Errorf("the dispatch's other path is the kept one: %+v", o)
				}
			}
			if err := schema.Validate(*l); err != nil {
				t.Error(err)
			}
			if err := schema.Validate(*h); err != nil {
				t.Error(err)
			}
		})
	}
}

// TestNoWebGPUFigures: where WebGPU measured nothing, raw Vulkan's
// figures are kept with no other path.
func TestNoWebGPUFigures(t *testing.T) {
	v := &schema.CapabilityVector{}
	r := vulkanRun(25e9, 18e-6, 70e-6)
	ch := chooseLink(v, r)
	if !ch.h2d || !ch.d2h || !ch.dispatch || !ch.upload || ch.anyWebGPU() {
		t.Fatalf("choice %+v", ch)
	}
	mergeLink(v, v, r, r, ch)
	if v.Interconnect.HostToDevice.OtherPath != nil || len(v.LaunchOverhead.OtherPaths) != 0 || v.LaunchOverhead.Probe != probeVulkanLaunch {
		t.Errorf("%+v %+v", v.Interconnect.HostToDevice, v.LaunchOverhead)
	}
}

package appraisal

import (
	"slices"
	"testing"

	"github.com/everycycle/appraise/internal/probe"
	"github.com/everycycle/appraise/internal/vkprobe/link"
	"github.com/everycycle/appraise/schema"
)

func st(m float64) schema.Stat { return schema.Stat{Samples: 101, Median: m, Min: m, Max: m} }

// vulkanRun is a raw-Vulkan host-link contribution with the given figures,
// as link.HostLinkProbe returns it.
func vulkanRun(h2d, dispatch, upload float64) *probe.Contribution {
	t := func() *schema.Transfer {
		return &schema.Transfer{BytesPerS: st(h2d), TransferBytes: 256 << 20, Path: "vulkan-copy.host-cached.compute", Probe: link.ProbeHostLink,
			Timing: schema.TimingGPUTimestamp, Check: schema.Check{Reference: "cpu", Elements: 1 << 20, ErrorKind: "exact", Passed: true}}
	}
	h := t()
	h.OtherPath = &schema.Transfer{BytesPerS: st(h2d / 2), TransferBytes: 256 << 20, Path: "vulkan-mapped-write.cpu.device-mapped", Probe: link.ProbeHostLink,
		Timing: schema.TimingHostWallClock, Check: h.Check}
	return &probe.Contribution{HostToDevice: h, DeviceToHost: t(),
		Launch: &schema.LaunchOverhead{EmptyDispatchS: st(dispatch), DispatchPath: "vulkan-dispatch.fence-spin",
			Upload1MiBS: st(upload), UploadPath: "vulkan-pinned-copy.host-cached.fence-spin", Probe: link.ProbeLaunch, Timing: schema.TimingHostWallClock,
			Check:      schema.Check{Reference: "closed-form", Elements: 1 << 20, ErrorKind: "exact", Passed: true},
			OtherPaths: []schema.OtherLatency{{Figure: "empty_dispatch_s", LatencyS: st(2 * dispatch), Path: "vulkan-dispatch.fence-wait", Probe: link.ProbeLaunch}}},
		Probes: []schema.ProbeRecord{{Name: link.ProbeHostLink, Version: "1"}, {Name: link.ProbeLaunch, Version: "1"}}}
}

// webgpuRun is the WebGPU probes' figures, as their run leaves them in a
// card.
func webgpuRun(h2d, dispatch, upload float64) *schema.CapabilityVector {
	t := func() *schema.Transfer {
		return &schema.Transfer{BytesPerS: st(h2d), TransferBytes: 256 << 20, Path: "mapped-staging", Probe: "webgpu-hostlink",
			Timing: schema.TimingQueueWallClock, Check: schema.Check{Reference: "cpu", Elements: 1, ErrorKind: "exact", Passed: true}}
	}
	return &schema.CapabilityVector{Interconnect: &schema.Interconnect{HostToDevice: t(), DeviceToHost: t()},
		LaunchOverhead: &schema.LaunchOverhead{EmptyDispatchS: st(dispatch), Upload1MiBS: st(upload),
			DispatchPath: "dispatch.poll-spin", UploadPath: "mapped-staging.poll-spin", Probe: "webgpu-launch", Timing: schema.TimingHostWallClock,
			Check: schema.Check{Reference: "closed-form", Elements: 100, ErrorKind: "exact", Passed: true}},
		Probes: []schema.ProbeRecord{{Name: "webgpu-hostlink", Version: "1"}, {Name: "webgpu-launch", Version: "1"}}}
}

// TestChooseLink: for each figure the faster path wins, WebGPU's figure
// against raw Vulkan's trial, bandwidth higher and latency lower; a figure
// WebGPU did not measure goes to raw Vulkan.
func TestChooseLink(t *testing.T) {
	vk := vkTrial{h2d: 25e9, d2h: 25e9, dispatch: 18e-6, upload: 70e-6}
	for _, tc := range []struct {
		name string
		web  *probe.Contribution
		want linkChoice
	}{
		{"vulkan faster everywhere", takeLink(webgpuRun(20e9, 36e-6, 79e-6)), linkChoice{true, true, true, true}},
		{"webgpu faster everywhere", takeLink(webgpuRun(26e9, 10e-6, 60e-6)), linkChoice{}},
		{"mixed", takeLink(webgpuRun(26e9, 36e-6, 60e-6)), linkChoice{false, false, true, false}},
		{"ties go to webgpu", takeLink(webgpuRun(25e9, 18e-6, 70e-6)), linkChoice{}},
		{"webgpu measured nothing", &probe.Contribution{}, linkChoice{true, true, true, true}},
		{"webgpu measured the link only", &probe.Contribution{HostToDevice: vulkanRun(30e9, 0, 0).HostToDevice}, linkChoice{false, true, true, true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := chooseLink(tc.web, vk); got != tc.want {
				t.Errorf("choice %+v, want %+v", got, tc.want)
			}
		})
	}
}

// TestKeptPath: a kept raw-Vulkan figure is its fresh samples, with
// WebGPU's figure and raw Vulkan's other candidates chained beside it; a
// kept WebGPU figure is its re-measurement, with raw Vulkan's kept path
// and its others beside it; the card lists the raw-Vulkan probes only
// where one of their figures was kept; the merged figures go into the
// card through add, where WebGPU's first ones were taken out.
func TestKeptPath(t *testing.T) {
	for _, tc := range []struct {
		name                      string
		web                       *schema.CapabilityVector
		wantH2D                   float64 // the signed figure
		wantChain                 []string
		wantDispatch, wantUpload  float64
		wantProbe, wantUploadProb string
		wantOthers                int
		wantProbes                []string
	}{
		{"vulkan faster everywhere", webgpuRun(20e9, 36e-6, 79e-6), 25e9, []string{"webgpu-hostlink", "vulkan-hostlink"}, 18e-6, 70e-6, "vulkan-launch", "", 3,
			[]string{"webgpu-hostlink", "webgpu-launch", "vulkan-hostlink", "vulkan-launch"}},
		{"webgpu faster everywhere", webgpuRun(26e9, 10e-6, 60e-6), 25.5e9, []string{"vulkan-hostlink", "vulkan-hostlink"}, 11e-6, 61e-6, "webgpu-launch", "", 3,
			[]string{"webgpu-hostlink", "webgpu-launch"}},
		{"mixed", webgpuRun(26e9, 36e-6, 60e-6), 25.5e9, []string{"vulkan-hostlink", "vulkan-hostlink"}, 18e-6, 61e-6, "vulkan-launch", "webgpu-launch", 3,
			[]string{"webgpu-hostlink", "webgpu-launch", "vulkan-launch"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v := tc.web
			webFirst := takeLink(v)
			if v.Interconnect.HostToDevice != nil || v.LaunchOverhead != nil {
				t.Fatal("takeLink left WebGPU's figures in the card")
			}
			vl := vulkanRun(25e9, 18e-6, 70e-6)
			ch := chooseLink(webFirst, vkTrial{h2d: 25e9, d2h: 25e9, dispatch: 18e-6, upload: 70e-6})
			webAgain := webFirst
			if ch.anyWebGPU() {
				webAgain = takeLink(webgpuRun(25.5e9, 11e-6, 61e-6))
			}
			if err := add(v, mergeLink(webFirst, webAgain, vl, ch)); err != nil {
				t.Fatal(err)
			}
			h := v.Interconnect.HostToDevice
			var chain []string
			for o := h.OtherPath; o != nil; o = o.OtherPath {
				chain = append(chain, o.Probe)
			}
			if h.BytesPerS.Median != tc.wantH2D || !slices.Equal(chain, tc.wantChain) {
				t.Fatalf("host → device %g beside %v, want %g beside %v", h.BytesPerS.Median, chain, tc.wantH2D, tc.wantChain)
			}
			if h.OtherPath.Probe == "webgpu-hostlink" && h.OtherPath.BytesPerS.Median != webFirst.HostToDevice.BytesPerS.Median {
				t.Errorf("other path %g, want WebGPU's first figure %g", h.OtherPath.BytesPerS.Median, webFirst.HostToDevice.BytesPerS.Median)
			}
			l := v.LaunchOverhead
			if l.EmptyDispatchS.Median != tc.wantDispatch || l.Upload1MiBS.Median != tc.wantUpload || l.Probe != tc.wantProbe || l.UploadProbe != tc.wantUploadProb {
				t.Errorf("launch %+v", l)
			}
			if len(l.OtherPaths) != tc.wantOthers {
				t.Errorf("other paths %+v", l.OtherPaths)
			}
			for _, o := range l.OtherPaths {
				if o.Figure == "empty_dispatch_s" && o.Path == l.DispatchPath {
					t.Errorf("the dispatch's other path is the kept one: %+v", o)
				}
			}
			var probes []string
			for _, p := range v.Probes {
				probes = append(probes, p.Name)
			}
			if !slices.Equal(probes, tc.wantProbes) {
				t.Errorf("probes %v, want %v", probes, tc.wantProbes)
			}
			for _, c := range []any{*l, *h, *v.Interconnect.DeviceToHost} {
				if err := schema.Validate(c); err != nil {
					t.Error(err)
				}
			}
		})
	}
}

// TestNoWebGPUFigures: where WebGPU measured nothing, raw Vulkan's
// figures are kept with only its own other candidates beside them.
func TestNoWebGPUFigures(t *testing.T) {
	v := &schema.CapabilityVector{}
	r := vulkanRun(25e9, 18e-6, 70e-6)
	web := takeLink(v)
	ch := chooseLink(web, vkTrial{h2d: 25e9, d2h: 25e9, dispatch: 18e-6, upload: 70e-6})
	if !ch.h2d || !ch.d2h || !ch.dispatch || !ch.upload || ch.anyWebGPU() {
		t.Fatalf("choice %+v", ch)
	}
	if err := add(v, mergeLink(web, web, r, ch)); err != nil {
		t.Fatal(err)
	}
	h := v.Interconnect.HostToDevice
	if h.OtherPath == nil || h.OtherPath.Probe != link.ProbeHostLink || len(v.LaunchOverhead.OtherPaths) != 1 || v.LaunchOverhead.Probe != link.ProbeLaunch {
		t.Errorf("%+v %+v", h, v.LaunchOverhead)
	}
}

// TestJoinLink: the WebGPU re-measure's contributions join into one, each
// figure from the probe that measured it.
func TestJoinLink(t *testing.T) {
	w := webgpuRun(26e9, 10e-6, 60e-6)
	link := &probe.Contribution{HostToDevice: w.Interconnect.HostToDevice, DeviceToHost: w.Interconnect.DeviceToHost}
	launch := &probe.Contribution{Launch: w.LaunchOverhead}
	got := joinLink(link, launch)
	if got.HostToDevice != link.HostToDevice || got.DeviceToHost != link.DeviceToHost || got.Launch != launch.Launch {
		t.Errorf("joined %+v", got)
	}
}

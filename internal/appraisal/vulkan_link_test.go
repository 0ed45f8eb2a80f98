package appraisal

import (
	"errors"
	"slices"
	"testing"

	"github.com/everycycle/appraise/coopmat/link"
	"github.com/everycycle/appraise/internal/probe"
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
		Probes: []schema.ProbeRecord{{Name: link.ProbeHostLink, Version: "1"}, {Name: link.ProbeLaunch, Version: "1"}},
		Trial:  &probe.LinkTrial{HostToDevice: h2d, DeviceToHost: h2d, EmptyDispatchS: dispatch, Upload1MiBS: upload}}
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

// TestChooseLink: for each figure the faster path wins, WebGPU's trial
// against raw Vulkan's, bandwidth higher and latency lower; the figures
// to be signed are not weighed; a figure WebGPU did not measure goes to
// raw Vulkan.
func TestChooseLink(t *testing.T) {
	vkT := probe.LinkTrial{HostToDevice: 25e9, DeviceToHost: 25e9, EmptyDispatchS: 18e-6, Upload1MiBS: 70e-6}
	trial := func(h2d, dispatch, upload float64) probe.LinkTrial {
		return probe.LinkTrial{HostToDevice: h2d, DeviceToHost: h2d, EmptyDispatchS: dispatch, Upload1MiBS: upload}
	}
	for _, tc := range []struct {
		name string
		web  *probe.Contribution
		webT probe.LinkTrial
		want linkChoice
	}{
		{"vulkan faster everywhere", takeLink(webgpuRun(20e9, 36e-6, 79e-6)), trial(20e9, 36e-6, 79e-6), linkChoice{true, true, true, true}},
		{"webgpu faster everywhere", takeLink(webgpuRun(26e9, 10e-6, 60e-6)), trial(26e9, 10e-6, 60e-6), linkChoice{}},
		{"mixed", takeLink(webgpuRun(26e9, 36e-6, 60e-6)), trial(26e9, 36e-6, 60e-6), linkChoice{false, false, true, false}},
		{"ties go to webgpu", takeLink(webgpuRun(25e9, 18e-6, 70e-6)), trial(25e9, 18e-6, 70e-6), linkChoice{}},
		// WebGPU's samples came out faster than raw Vulkan's trial, its
		// trial slower: the trials decide.
		{"the trials decide, not the samples", takeLink(webgpuRun(30e9, 10e-6, 60e-6)), trial(20e9, 36e-6, 79e-6), linkChoice{true, true, true, true}},
		{"webgpu measured nothing", &probe.Contribution{}, probe.LinkTrial{}, linkChoice{true, true, true, true}},
		{"webgpu measured the link only", &probe.Contribution{HostToDevice: vulkanRun(30e9, 0, 0).HostToDevice}, probe.LinkTrial{HostToDevice: 30e9}, linkChoice{false, true, true, true}},
		{"a figure without its trial goes to vulkan", takeLink(webgpuRun(26e9, 10e-6, 60e-6)), probe.LinkTrial{DeviceToHost: 26e9}, linkChoice{true, false, true, true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := chooseLink(tc.web, tc.webT, vkT); got != tc.want {
				t.Errorf("choice %+v, want %+v", got, tc.want)
			}
		})
	}
}

// TestKeptPath: a kept figure is its API's samples, raw Vulkan's with
// WebGPU's figure and raw Vulkan's other candidates chained beside it,
// WebGPU's with raw Vulkan's kept path and its others beside it; the card
// lists the raw-Vulkan probes only where one of their figures was kept;
// the merged figures go into the card through add, where WebGPU's were
// taken out.
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
		{"webgpu faster everywhere", webgpuRun(26e9, 10e-6, 60e-6), 26e9, []string{"vulkan-hostlink", "vulkan-hostlink"}, 10e-6, 60e-6, "webgpu-launch", "", 3,
			[]string{"webgpu-hostlink", "webgpu-launch"}},
		{"mixed", webgpuRun(26e9, 36e-6, 60e-6), 26e9, []string{"vulkan-hostlink", "vulkan-hostlink"}, 18e-6, 60e-6, "vulkan-launch", "webgpu-launch", 3,
			[]string{"webgpu-hostlink", "webgpu-launch", "vulkan-launch"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v := tc.web
			l0, h0 := *v.LaunchOverhead, *v.Interconnect.HostToDevice
			webT := probe.LinkTrial{HostToDevice: h0.BytesPerS.Median, DeviceToHost: h0.BytesPerS.Median,
				EmptyDispatchS: l0.EmptyDispatchS.Median, Upload1MiBS: l0.Upload1MiBS.Median}
			web := takeLink(v)
			if v.Interconnect.HostToDevice != nil || v.LaunchOverhead != nil {
				t.Fatal("takeLink left WebGPU's figures in the card")
			}
			vl := vulkanRun(25e9, 18e-6, 70e-6)
			ch := chooseLink(web, webT, *vl.Trial)
			if err := add(v, mergeLink(web, vl, ch)); err != nil {
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
			if h.OtherPath.Probe == "webgpu-hostlink" && h.OtherPath.BytesPerS.Median != h0.BytesPerS.Median {
				t.Errorf("other path %g, want WebGPU's figure %g", h.OtherPath.BytesPerS.Median, h0.BytesPerS.Median)
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
	ch := chooseLink(web, probe.LinkTrial{}, *r.Trial)
	if !ch.h2d || !ch.d2h || !ch.dispatch || !ch.upload {
		t.Fatalf("choice %+v", ch)
	}
	if err := add(v, mergeLink(web, r, ch)); err != nil {
		t.Fatal(err)
	}
	h := v.Interconnect.HostToDevice
	if h.OtherPath == nil || h.OtherPath.Probe != link.ProbeHostLink || len(v.LaunchOverhead.OtherPaths) != 1 || v.LaunchOverhead.Probe != link.ProbeLaunch {
		t.Errorf("%+v %+v", h, v.LaunchOverhead)
	}
}

// TestPathRules: the kept host-link and launch figures are held against
// the best other path's figure of the same quantity; a card whose kept
// path another path beat beyond the band says so, and a figure with no
// other path has no check.
func TestPathRules(t *testing.T) {
	merged := func(web *schema.CapabilityVector, vl *probe.Contribution, webT probe.LinkTrial) *schema.CapabilityVector {
		w := takeLink(web)
		return linkFigures(mergeLink(w, vl, chooseLink(w, webT, *vl.Trial)))
	}
	// The trials chose raw Vulkan everywhere (as they did on the H200);
	// its fresh samples came out as fast as its trial.
	quiet := webT(20e9, 36e-6, 79e-6)
	got := checkConsistency(consistencyRules(), merged(webgpuRun(20e9, 36e-6, 79e-6), vulkanRun(25e9, 18e-6, 70e-6), quiet))
	want := map[string]float64{
		"host-to-device-kept-path": 20e9 / 25e9, // WebGPU's 20 beside the kept 25
		"device-to-host-kept-path": 20e9 / 25e9,
		"empty-dispatch-kept-path": 18e-6 / 36e-6,
		"upload-kept-path":         70e-6 / 79e-6,
	}
	if len(got) != len(want) {
		t.Fatalf("checks %+v, want the four path rules", got)
	}
	for _, c := range got {
		if r, ok := want[c.Rule]; !ok || !c.Agrees || !near(c.Ratio, r) {
			t.Errorf("%s: ratio %g agrees %t, want %g agreeing", c.Rule, c.Ratio, c.Agrees, r)
		}
		if err := schema.Validate(c); err != nil {
			t.Error(err)
		}
	}
	// The software card of 2026-12-04: the trial kept raw Vulkan's
	// dispatch, whose fresh samples took 327.7 µs; WebGPU's took 104.8.
	slow := vulkanRun(25e9, 327.7e-6, 70e-6)
	slow.Trial.EmptyDispatchS = 90e-6
	v := merged(webgpuRun(20e9, 104.8e-6, 79e-6), slow, webT(20e9, 104.8e-6, 79e-6))
	verdict := verdicts(checkConsistency(consistencyRules(), v))
	if verdict["empty-dispatch-kept-path"] || !verdict["upload-kept-path"] || !verdict["host-to-device-kept-path"] {
		t.Errorf("verdicts %v: want the dispatch alone disagreeing", verdict)
	}
	// Bandwidth: the kept 25 GB/s beside another path's 28 (1.12) disagrees.
	v.Interconnect.HostToDevice.OtherPath.BytesPerS = st(28e9)
	if verdicts(checkConsistency(consistencyRules(), v))["host-to-device-kept-path"] {
		t.Error("another path's 28 GB/s beside the kept 25 agrees")
	}
	// No other path, no check: WebGPU's figures alone, as the WebGPU
	// probes' own rules see them.
	for _, c := range checkConsistency(consistencyRules(), webgpuRun(20e9, 36e-6, 79e-6)) {
		t.Errorf("a figure without another path was checked: %+v", c)
	}
}

// webT is WebGPU's trial with the figures of webgpuRun.
func webT(h2d, dispatch, upload float64) probe.LinkTrial {
	return probe.LinkTrial{HostToDevice: h2d, DeviceToHost: h2d, EmptyDispatchS: dispatch, Upload1MiBS: upload}
}

func near(a, b float64) bool { return a > 0.999*b && a < 1.001*b }

// TestSettleLink: a path rule that disagrees measures raw Vulkan once
// more, weighed against the same WebGPU figures; a GPU's card fails when
// it still disagrees, a software adapter's records it; the kept figures
// and every check go into the card either way.
func TestSettleLink(t *testing.T) {
	slow := func() *probe.Contribution {
		r := vulkanRun(25e9, 327.7e-6, 70e-6)
		r.Trial.EmptyDispatchS = 90e-6
		return r
	}
	for _, tc := range []struct {
		name     string
		software bool
		runs     []*probe.Contribution
		wantRuns int
		wantErr  bool
		agrees   bool
	}{
		{"agrees at once", false, []*probe.Contribution{vulkanRun(25e9, 18e-6, 70e-6)}, 1, false, true},
		{"gpu, agrees when measured again", false, []*probe.Contribution{slow(), vulkanRun(25e9, 18e-6, 70e-6)}, 2, false, true},
		{"gpu, disagrees again", false, []*probe.Contribution{slow(), slow()}, 2, true, false},
		{"software, disagrees again", true, []*probe.Contribution{slow(), slow()}, 2, false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v := webgpuRun(20e9, 104.8e-6, 79e-6)
			runs, said := 0, 0
			measure := func() (*probe.Contribution, probe.LinkTrial, error) {
				r := tc.runs[runs]
				runs++
				return r, *r.Trial, nil
			}
			err := settleLink(v, webT(20e9, 104.8e-6, 79e-6), tc.software, measure, func(bad []schema.ConsistencyCheck) {
				said++
				if len(bad) != 1 || bad[0].Rule != "empty-dispatch-kept-path" {
					t.Errorf("disagreeing %+v", bad)
				}
			})
			if runs != tc.wantRuns || said != tc.wantRuns-1 {
				t.Errorf("raw Vulkan measured %d times, said %d, want %d", runs, said, tc.wantRuns)
			}
			if (err != nil) != tc.wantErr || (err != nil && !errors.Is(err, ErrInconsistent)) {
				t.Fatalf("err %v, want an inconsistency: %t", err, tc.wantErr)
			}
			if v.LaunchOverhead == nil || v.Interconnect.HostToDevice == nil || len(v.Consistency) != 4 {
				t.Fatalf("card %+v, checks %+v", v.LaunchOverhead, v.Consistency)
			}
			for _, c := range v.Consistency {
				if c.Remeasured != (tc.wantRuns == 2) {
					t.Errorf("%s remeasured %t", c.Rule, c.Remeasured)
				}
				if c.Rule == "empty-dispatch-kept-path" && c.Agrees != tc.agrees {
					t.Errorf("%s agrees %t, want %t", c.Rule, c.Agrees, tc.agrees)
				}
			}
		})
	}
}

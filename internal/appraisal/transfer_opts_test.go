package appraisal

import (
	"testing"

	"github.com/everycycle/appraise/coopmat/link"
	gpupkg "github.com/everycycle/appraise/gpu"
	"github.com/everycycle/appraise/internal/probe/cpu"
)

// TestTransferOptions: a software adapter's raw-Vulkan host link moves
// 64 MiB per transfer with the brief counts and WebGPU's software warm-up,
// and under --quick no kernel routes; a GPU keeps the default size,
// warm-up, routes and counts, the brief counts only under --quick.
func TestTransferOptions(t *testing.T) {
	sw := Candidate{Addr: "software-0"}
	sw.Adapter.Software = true
	gpu := Candidate{Addr: "0000:01:00.0"}
	brief := func(o link.TransferOptions) link.TransferOptions {
		o.Samples, o.LatencySamples, o.TrialRounds, o.LatencyTrialRounds = 3, 21, 3, 7
		return o
	}
	for _, tc := range []struct {
		name string
		c    Candidate
		o    Options
		want link.TransferOptions
	}{
		{"software", sw, Options{}, brief(link.TransferOptions{Bytes: softwareTransferBytes, Warmup: gpupkg.SoftwareWarmUp})},
		{"software quick", sw, Options{Quick: true}, brief(link.TransferOptions{Bytes: softwareTransferBytes, Warmup: gpupkg.SoftwareWarmUp, NoKernelRoutes: true})},
		{"gpu", gpu, Options{}, link.TransferOptions{}},
		{"gpu quick", gpu, Options{Quick: true}, brief(link.TransferOptions{})},
	} {
		got := transferOptions(tc.c, tc.o)
		if got.Samples != tc.want.Samples || got.LatencySamples != tc.want.LatencySamples || got.TrialRounds != tc.want.TrialRounds ||
			got.LatencyTrialRounds != tc.want.LatencyTrialRounds || got.Bytes != tc.want.Bytes || got.Warmup != tc.want.Warmup ||
			got.NoKernelRoutes != tc.want.NoKernelRoutes || got.BulkOnly {
			t.Errorf("%s: %+v, want %+v", tc.name, got, tc.want)
		}
	}
}

// TestVulkanOptions: a software adapter's raw-Vulkan kernels run small
// dispatches and 512³ GEMMs, quick or not; a quick GPU appraisal keeps the
// vector kernels' default dispatch (a smaller one leaves compute units
// idle and would sign a part of the device as the device) and runs its
// GEMMs at 4096³; a full GPU appraisal takes every default.
func TestVulkanOptions(t *testing.T) {
	sw := Candidate{Addr: "software-0"}
	sw.Adapter.Software = true
	gpu := Candidate{Addr: "0000:01:00.0"}
	type sizes struct{ inv, steps, size, search uint32 }
	for _, tc := range []struct {
		name string
		c    Candidate
		o    Options
		want sizes
	}{
		{"software", sw, Options{}, sizes{1 << 14, softwareFMASteps, 512, 256}},
		{"software quick", sw, Options{Quick: true}, sizes{1 << 14, softwareFMASteps, 512, 256}},
		{"gpu", gpu, Options{}, sizes{}},
		{"gpu quick", gpu, Options{Quick: true}, sizes{0, 0, quickGEMMSize, 0}},
	} {
		o := vulkanOptions(tc.c, tc.o)
		if got := (sizes{o.FMAInvocations, o.FMASteps, o.Size, o.SearchSize}); got != tc.want {
			t.Errorf("%s: %+v, want %+v", tc.name, got, tc.want)
		}
	}
}

// TestEfforts: --quick gives the WebGPU probes and the CPU baseline their
// brief sampling, and a software adapter's roofline one more thinning and
// 64 MiB stream arrays; without --quick every Effort is the default.
func TestEfforts(t *testing.T) {
	sw := Candidate{Addr: "software-0"}
	sw.Adapter.Software = true
	gpu := Candidate{Addr: "0000:01:00.0"}
	soft := quickWebGPU
	soft.RooflineThin, soft.BandwidthMaxArrayBytes = 2, 64<<20
	for _, tc := range []struct {
		name string
		c    Candidate
		o    Options
		want gpupkg.Effort
	}{
		{"software", sw, Options{}, gpupkg.Effort{}},
		{"software quick", sw, Options{Quick: true}, soft},
		{"gpu", gpu, Options{}, gpupkg.Effort{}},
		{"gpu quick", gpu, Options{Quick: true}, quickWebGPU},
	} {
		if got := deviceOptions(tc.c, tc.o).Effort; got != tc.want {
			t.Errorf("%s: %+v, want %+v", tc.name, got, tc.want)
		}
	}
	brief := gpupkg.Effort{
		ALU:                  gpupkg.Sampling{BudgetS: 0.25, MinSamples: 3, MaxSamples: 5},
		Bandwidth:            gpupkg.Sampling{BudgetS: 0.25, MinSamples: 3, MaxSamples: 5},
		Roofline:             gpupkg.Sampling{BudgetS: 0.1, MaxSamples: 5},
		BandwidthTrialRounds: 2, RooflineThin: 1, RooflineMinArrayBytes: 4 << 20,
	}
	if quickWebGPU != brief {
		t.Errorf("quick GPU effort %+v, want %+v", quickWebGPU, brief)
	}
	for _, quick := range []bool{false, true} {
		rp, err := planRun(t.Context(), nil, Options{Quick: quick, SysfsRoot: t.TempDir()})
		want := cpu.Effort{}
		if quick {
			want = cpu.Effort{Samples: 3, SampleS: 0.052, ArrayLLCs: 2}
		}
		if err != nil || rp.cpu.Effort != want {
			t.Errorf("quick %t: CPU effort %+v, %v; want %+v", quick, rp.cpu.Effort, err, want)
		}
	}
}

package appraisal

import (
	"testing"

	"github.com/everycycle/appraise/internal/probe/vulkan/link"
	gpupkg "github.com/everycycle/appraise/internal/probe/webgpu"
)

// TestTransferOptions: a software adapter's raw-Vulkan host link moves
// 64 MiB per transfer with the quick sample counts and WebGPU's software
// warm-up, and under --quick no kernel routes; a GPU keeps the default
// size, warm-up and routes, with fewer samples only under --quick.
func TestTransferOptions(t *testing.T) {
	sw := Candidate{Addr: "software-0"}
	sw.Adapter.Software = true
	gpu := Candidate{Addr: "0000:01:00.0"}
	for _, tc := range []struct {
		name string
		c    Candidate
		o    Options
		want link.TransferOptions
	}{
		{"software", sw, Options{}, link.TransferOptions{Quick: true, Bytes: softwareTransferBytes, Warmup: gpupkg.SoftwareWarmUp}},
		{"software quick", sw, Options{Quick: true}, link.TransferOptions{Quick: true, Bytes: softwareTransferBytes, Warmup: gpupkg.SoftwareWarmUp, NoKernelRoutes: true}},
		{"gpu", gpu, Options{}, link.TransferOptions{}},
		{"gpu quick", gpu, Options{Quick: true}, link.TransferOptions{Quick: true}},
	} {
		if got := transferOptions(tc.c, tc.o); got.Quick != tc.want.Quick || got.Bytes != tc.want.Bytes || got.Warmup != tc.want.Warmup || got.NoKernelRoutes != tc.want.NoKernelRoutes {
			t.Errorf("%s: %+v, want %+v", tc.name, got, tc.want)
		}
	}
}

package appraisal

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/everycycle/appraise/coopmat/vk"
	"github.com/everycycle/appraise/internal/crosscheck"
	"github.com/everycycle/appraise/internal/probe/cublaslt"
)

// planOf plans c alone with o, no cross-check configured, on a host
// whose meminfo gives 64 GiB available (o.SysfsRoot, when not set).
func planOf(t *testing.T, c Candidate, o Options) DevicePlan {
	t.Helper()
	if o.SysfsRoot == "" {
		o.SysfsRoot = t.TempDir()
		if err := os.MkdirAll(filepath.Join(o.SysfsRoot, "proc"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(o.SysfsRoot, "proc/meminfo"), []byte("MemAvailable: 67108864 kB\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ps, err := Plan(context.Background(), []Candidate{c}, o)
	if err != nil {
		t.Fatal(err)
	}
	return ps[0]
}

// The plan resolves the command line per device before any device is
// opened: the probes, the soak's length and load, the vendor BLAS and
// its GEMM size, what is skipped and why; appraiseDevice runs exactly
// what it says.
func TestPlanDevice(t *testing.T) {
	sw := Candidate{Addr: "software-0", Vulkan: &vk.DeviceInfo{}}
	sw.Adapter.Software, sw.Adapter.Name = true, "llvmpipe (LLVM 15.0.6, 256 bits)"
	gpuDev := h200()
	gpuDev.Addr, gpuDev.Vulkan = gpuDev.BusAddress, &vk.DeviceInfo{DeviceLocalBytes: 141 << 30, DeviceLocalBudgetBytes: 139 << 30}
	noLib := BLASOptions{Load: cublaslt.LoadOptions{Path: "/nonexistent/libcublasLt.so.13"}}
	none := time.Duration(0)

	p := planOf(t, sw, Options{Quick: true})
	if p.Mode != "quick" || p.SoakLoad != SoakLoadFMA || p.SoakS != softwareSoak.Seconds() || p.BLAS != "none" ||
		p.MemoryLimitBytes != softwareMemoryLimit || len(p.WebGPU) != 5 || !slices.Contains(p.Vulkan, "host link and launch") {
		t.Errorf("software, quick: %+v", p)
	}
	if len(p.Skipped) != 1 || p.Skipped[0].Probe != vk.ProbeCoopMatGEMM || !strings.HasPrefix(p.CrossCheck, "none: ") {
		t.Errorf("software, quick: skipped %+v, cross-check %q", p.Skipped, p.CrossCheck)
	}
	if p := planOf(t, sw, Options{Quick: true, CrossCheck: &crosscheck.Config{Tolerance: 0.05}}); !strings.Contains(p.CrossCheck, "software adapter") {
		t.Errorf("software, cross-check configured: %q", p.CrossCheck)
	}
	if p.ExpectedS != expectedSoftwareQuickS+softwareSoak.Seconds() {
		t.Errorf("software, quick: expected %v s", p.ExpectedS)
	}

	p = planOf(t, sw, Options{Quick: true, CoopMat: true, Soak: &none, BLAS: BLASOptions{All: true}})
	if p.SoakLoad != "" || p.SoakS != 0 || !slices.Contains(p.Vulkan, vk.ProbeCoopMatGEMM) || p.GEMMSize != softwareGEMMSize(t, sw) {
		t.Errorf("software, --coopmat --soak 0: %+v", p)
	}
	if len(p.Skipped) != 1 || p.Skipped[0].Probe != cublaslt.ProbeName || !strings.Contains(p.Skipped[0].Reason, "software adapter") {
		t.Errorf("software, --blas: skipped %+v", p.Skipped)
	}

	p = planOf(t, gpuDev, Options{Quick: true, BLAS: noLib})
	if p.Mode != "quick" || p.BLAS != "without-vulkan-entry" || p.GEMMSize != quickGEMMSize || p.SoakLoad != SoakLoadFMA ||
		p.SoakS != QuickSoak.Seconds() || p.MemoryLimitBytes != 139<<30 {
		t.Errorf("GPU without the library, quick: %+v", p)
	}
	noLib.All = true
	if p = planOf(t, gpuDev, Options{BLAS: noLib}); p.BLAS != "all" || p.Mode != "full" || p.SoakS != DefaultSoak.Seconds() ||
		p.ExpectedS != expectedGPUFullS+DefaultSoak.Seconds() || p.turnS() != expectedGPUTurnFullS {
		t.Errorf("GPU, --blas, full: %+v", p)
	}

	noVulkan := gpuDev
	noVulkan.Vulkan, noVulkan.vulkanWhy = nil, "no raw-Vulkan device matches this adapter"
	if p = planOf(t, noVulkan, Options{Quick: true, BLAS: noLib}); len(p.Vulkan) != 0 || p.Skipped[0].Reason != noVulkan.vulkanWhy {
		t.Errorf("GPU without a raw-Vulkan match: %+v", p)
	}

	for _, c := range []Candidate{sw, gpuDev} {
		if _, err := Plan(context.Background(), []Candidate{c}, Options{SoakLoad: SoakLoadGEMM, BLAS: BLASOptions{Load: noLib.Load}}); !errors.Is(err, ErrSoakLoad) {
			t.Errorf("%s: --soak-load gemm without the library: %v, want ErrSoakLoad", c.Addr, err)
		}
	}
}

// softwareGEMMSize is the cooperative-matrix GEMM edge a software adapter's
// plan names.
func softwareGEMMSize(t *testing.T, c Candidate) int {
	t.Helper()
	return int(vulkanOptions(c, Options{}).Size)
}

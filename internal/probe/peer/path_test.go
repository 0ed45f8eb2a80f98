package peer

import (
	"fmt"
	"strings"
	"testing"
)

func TestChooseEveryCombination(t *testing.T) {
	for i := 0; i < 16; i++ {
		a := Availability{VulkanDeviceGroup: i&1 != 0,
			CUDA: CUDAStatus{Loaded: i&2 != 0, Found: i&4 != 0, PeerAccess: i&8 != 0}}
		want := PathHostStaged
		switch {
		case a.VulkanDeviceGroup:
			want = PathVulkanDeviceGroup
		case a.CUDA.Loaded && a.CUDA.Found && a.CUDA.PeerAccess:
			want = PathCUDAPeer
		}
		t.Run(fmt.Sprintf("%+v", a), func(t *testing.T) {
			c := Choose(a)
			if c.Path != want {
				t.Fatalf("Choose = %q, want %q", c.Path, want)
			}
			if wantPassed := map[Path]int{PathVulkanDeviceGroup: 0, PathCUDAPeer: 1, PathHostStaged: 2}[want]; len(c.Passed) != wantPassed {
				t.Errorf("Passed = %+v for %q", c.Passed, c.Path)
			}
			for _, p := range c.Passed {
				if p.Why == "" || p.Path == c.Path {
					t.Errorf("Passed = %+v for %q", c.Passed, c.Path)
				}
			}
		})
	}
}

func TestChooseSaysWhy(t *testing.T) {
	c := Choose(Availability{CUDA: CUDAStatus{Why: "cuda: load libcuda.so.1: not found"}})
	if !strings.Contains(c.Passed[0].Why, "Vulkan device group") || !strings.Contains(c.Passed[1].Why, "libcuda.so.1") {
		t.Errorf("Passed = %+v", c.Passed)
	}
	c = Choose(Availability{CUDA: CUDAStatus{Loaded: true, Found: true}, VulkanWhy: "groups unknown"})
	if c.Passed[0].Why != "groups unknown" || !strings.Contains(c.Passed[1].Why, "peer access") {
		t.Errorf("Passed = %+v", c.Passed)
	}
}

func TestPathNamesNoLinkKind(t *testing.T) {
	for _, p := range []Path{PathVulkanDeviceGroup, PathCUDAPeer, PathHostStaged} {
		for _, s := range []string{string(p), p.Probe()} {
			if s == "" || strings.Contains(strings.ToLower(s), "nvlink") || strings.Contains(strings.ToLower(s), "pcie") {
				t.Errorf("path %q names %q", p, s)
			}
		}
	}
}

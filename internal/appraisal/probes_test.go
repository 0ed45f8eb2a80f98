package appraisal

import (
	"slices"
	"testing"
	"time"

	"github.com/everycycle/appraise/gpu"
	"github.com/everycycle/appraise/internal/probe"
)

// TestWebGPUProbeOrder: the WebGPU probes run in the order and under the
// names and versions cards have always recorded; the memtest follows the
// capacity probe, the FMA soak comes last and only with a soak.
func TestWebGPUProbeOrder(t *testing.T) {
	c := Candidate{Addr: "software-0", vulkanWhy: "no raw-Vulkan device matches this adapter"}
	c.Adapter.Software, c.Adapter.Name = true, "llvmpipe (LLVM 15.0.6, 256 bits)"
	plan := func(o Options) DevicePlan {
		t.Helper()
		p, err := planDevice(c, o, &crossCheckPlan{why: map[string]string{c.Addr: "none configured"}}, 1)
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	p := plan(Options{Quick: true})
	var names []string
	for _, p := range firstProbes(p) {
		names = append(names, p.Name()+"@"+p.Version())
	}
	names = append(names, capacityProbe(c, nil).Name()+"@"+capacityProbe(c, nil).Version())
	names = append(names, gpu.IntegrityProbe{}.Name()+"@"+gpu.IntegrityProbe{}.Version())
	fma := fmaSoakProbe(c, p, nil, nil)
	if p.SoakLoad != SoakLoadFMA || fma.Duration != softwareSoak {
		t.Errorf("quick software soak: %v, %q", fma.Duration, p.SoakLoad)
	}
	names = append(names, fma.Name()+"@"+fma.Version())
	want := []string{"webgpu-stream@2", "webgpu-alu@2", "webgpu-roofline@5",
		"webgpu-capacity@2", "webgpu-memtest@2", "webgpu-soak@2"}
	if !slices.Equal(names, want) {
		t.Errorf("probes %v, want %v", names, want)
	}
	none := time.Duration(0)
	if p := plan(Options{Soak: &none}); p.SoakLoad != "" || p.SoakS != 0 {
		t.Errorf("a soak with --soak 0: %q, %v s", p.SoakLoad, p.SoakS)
	}
}

// TestMemtestFromCapacity: the memtest covers the usable memory of the
// capacity probe's own contribution, and cannot be built without one; the
// plan caps it (and the roofline's arrays) with --quick.
func TestMemtestFromCapacity(t *testing.T) {
	c := Candidate{Addr: "0000:01:00.0", vulkanWhy: "no raw-Vulkan device matches this adapter"}
	c.Adapter.Name = "a GPU"
	if _, err := memtestProbe(0, nil, nil, nil); err == nil {
		t.Error("a memtest without the usable memory")
	}
	capacity := &probe.Contribution{Usable: &probe.Usable{Bytes: 3 << 30, LimitedBy: "memory-limit"}}
	m, err := memtestProbe(quickMemtestBytes, nil, capacity, nil)
	if err != nil || m.UsableBytes != 3<<30 || m.CapBytes != quickMemtestBytes {
		t.Errorf("memtest %+v, %v", m, err)
	}
	if p := planOf(t, c, Options{Quick: true}); p.memtestCap != quickMemtestBytes || p.roofline.MaxArrayBytes != quickRooflineArrayBytes {
		t.Errorf("quick GPU plan: memtest cap %d, roofline arrays %d", p.memtestCap, p.roofline.MaxArrayBytes)
	}
	if p := planOf(t, c, Options{}); p.memtestCap != 0 || p.roofline.MaxArrayBytes != 0 {
		t.Errorf("full GPU plan: memtest cap %d, roofline arrays %d", p.memtestCap, p.roofline.MaxArrayBytes)
	}
	c.Adapter.Software = true
	if p := planOf(t, c, Options{Quick: true}); p.memtestCap != quickSoftwareMemtestBytes {
		t.Errorf("quick software plan: memtest cap %d", p.memtestCap)
	}
}

// TestCheckMemtest: a health check's memtest takes its share of a slice
// of the card's usable memory, never more than the memory, and states
// its fraction of all of it.
func TestCheckMemtest(t *testing.T) {
	m := checkMemtest(80 << 30)
	if m.UsableBytes != 80<<30 || m.SliceBytes == 0 || float64(m.SliceBytes)*gpu.IntegrityShare > checkIntegrityCap {
		t.Errorf("%+v", m)
	}
	if m := checkMemtest(16 << 20); m.SliceBytes != 16<<20 {
		t.Errorf("%+v", m)
	}
}

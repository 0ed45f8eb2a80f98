package appraisal

import (
	"slices"
	"testing"
	"time"

	"github.com/everycycle/appraise/internal/probe"
	"github.com/everycycle/appraise/internal/probe/webgpu"
)

// TestWebGPUProbeOrder: the WebGPU probes run in the order and under the
// names and versions cards have always recorded; the memtest follows the
// capacity probe, the FMA soak comes last and only with a soak.
func TestWebGPUProbeOrder(t *testing.T) {
	c := Candidate{Addr: "software-0"}
	c.Adapter.Software = true
	var names []string
	for _, p := range probes(Options{Quick: true}) {
		names = append(names, p.Name()+"@"+p.Version())
	}
	names = append(names, capacityProbe(c).Name()+"@"+capacityProbe(c).Version())
	names = append(names, webgpu.IntegrityProbe{}.Name()+"@"+webgpu.IntegrityProbe{}.Version())
	fma, ok := fmaSoakProbe(c, Options{Quick: true}, nil)
	if !ok || fma.Duration != softwareSoak {
		t.Errorf("quick software soak: %v, %v", fma.Duration, ok)
	}
	names = append(names, fma.Name()+"@"+fma.Version())
	want := []string{"webgpu-stream@1", "webgpu-launch@1", "webgpu-hostlink@1", "webgpu-alu@1", "webgpu-roofline@4",
		"webgpu-capacity@1", "webgpu-memtest@1", "webgpu-soak@2"}
	if !slices.Equal(names, want) {
		t.Errorf("probes %v, want %v", names, want)
	}
	none := time.Duration(0)
	if _, ok := fmaSoakProbe(c, Options{Soak: &none}, nil); ok {
		t.Error("a soak with --soak 0")
	}
}

// TestMemtestFromCapacity: the memtest covers the usable memory of the
// capacity probe's own contribution, and cannot be built without one.
func TestMemtestFromCapacity(t *testing.T) {
	c := Candidate{Addr: "0000:01:00.0"}
	if _, err := memtestProbe(c, Options{}, nil); err == nil {
		t.Error("a memtest without the usable memory")
	}
	capacity := &probe.Contribution{Usable: &probe.Usable{Bytes: 3 << 30, LimitedBy: "memory-limit"}}
	m, err := memtestProbe(c, Options{Quick: true}, capacity)
	if err != nil || m.UsableBytes != 3<<30 || !m.Quick || m.Software {
		t.Errorf("memtest %+v, %v", m, err)
	}
}

// TestCheckMemtest: a health check's memtest takes its share of a slice
// of the card's usable memory, never more than the memory, and states
// its fraction of all of it.
func TestCheckMemtest(t *testing.T) {
	m := checkMemtest(80<<30, false)
	if m.UsableBytes != 80<<30 || m.SliceBytes == 0 || float64(m.SliceBytes)*webgpu.IntegrityShare > checkIntegrityCap || !m.Quick {
		t.Errorf("%+v", m)
	}
	if m := checkMemtest(16<<20, true); m.SliceBytes != 16<<20 || !m.Software {
		t.Errorf("%+v", m)
	}
}

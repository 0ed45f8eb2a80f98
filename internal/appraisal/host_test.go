package appraisal

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/everycycle/appraise/coopmat/vk"
	"github.com/everycycle/appraise/internal/probe"
	"github.com/everycycle/appraise/internal/probe/cpu"
	"github.com/everycycle/appraise/schema"
)

// The box takes a host baseline once, and nothing a card carries.
func TestAddToBox(t *testing.T) {
	var box schema.BoxPayload
	h := &schema.HostBaseline{Threads: 2, ISA: "avx2+fma"}
	if err := addToBox(&box, &probe.Contribution{HostBaseline: h}); err != nil || box.HostBaseline != h {
		t.Fatalf("first baseline: %v, box has %v", err, box.HostBaseline)
	}
	if err := addToBox(&box, &probe.Contribution{HostBaseline: &schema.HostBaseline{}}); err == nil {
		t.Error("a second host baseline was accepted")
	}
	if err := addToBox(&box, &probe.Contribution{Skipped: []schema.Skip{{Probe: "x", Item: "y", Reason: "z"}}}); err == nil {
		t.Error("a card's figure was accepted into the box")
	}
	if err := addToBox(&box, nil); err != nil || box.HostBaseline != h {
		t.Errorf("nil contribution: %v", err)
	}
}

// fakeHostProbe is a CPU baseline that returns what it is given.
type fakeHostProbe struct {
	c   *probe.Contribution
	err error
}

func (fakeHostProbe) Name() string    { return cpu.ProbeName }
func (fakeHostProbe) Version() string { return "test" }
func (p fakeHostProbe) Run(context.Context, cpu.Host) (*probe.Contribution, error) {
	return p.c, p.err
}

// The CPU baseline never sinks the run: a baseline that cannot run or
// fails its check is recorded as not measured, with the probe's words; a
// baseline without bandwidth (arrays would fit the caches) keeps its
// throughput and says why bandwidth is absent; only an interrupted run
// stops. Every box that results validates.
func TestHostBaselineNeverSinksTheRun(t *testing.T) {
	baseline := func() *schema.HostBaseline {
		return &schema.HostBaseline{Threads: 2, ISA: "avx2+fma", LastLevelCacheBytes: 480 << 20,
			Precisions: []schema.PrecisionThroughput{testFMA()}}
	}
	tooSmall := "cpubench: too little memory for arrays larger than the caches: 1024 MiB for 3 arrays over 2 threads gives 341 MiB arrays, want at least 960 MiB"
	for _, c := range []struct {
		name      string
		p         fakeHostProbe
		wantField string
		wantIn    string
	}{
		{"check failed", fakeHostProbe{err: fmt.Errorf("cpubench: copy: %w", cpu.ErrCheckFailed)}, "host_baseline", "copy"},
		{"cannot run", fakeHostProbe{err: errors.New("host: open /proc/meminfo: permission denied")}, "host_baseline", "meminfo"},
		{"arrays would fit the caches", fakeHostProbe{c: &probe.Contribution{HostBaseline: baseline(),
			NotMeasured: []schema.Omission{{Field: "host_baseline.bandwidth", Reason: tooSmall}}}}, "host_baseline.bandwidth", "960 MiB"},
	} {
		t.Run(c.name, func(t *testing.T) {
			box := testBox()
			if err := hostBaseline(context.Background(), c.p, &box); err != nil {
				t.Fatalf("hostBaseline: %v", err)
			}
			if len(box.NotMeasured) != 1 || box.NotMeasured[0].Field != c.wantField || !strings.Contains(box.NotMeasured[0].Reason, c.wantIn) {
				t.Fatalf("not_measured = %+v; want %s naming %q", box.NotMeasured, c.wantField, c.wantIn)
			}
			if err := schema.Validate(box); err != nil {
				t.Errorf("the box does not validate: %v", err)
			}
		})
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	box := testBox()
	if err := hostBaseline(ctx, fakeHostProbe{err: context.Canceled}, &box); !errors.Is(err, context.Canceled) {
		t.Errorf("interrupted baseline: %v, want context.Canceled", err)
	}
}

// testFMA is one checked CPU FMA figure, as the baseline writes it.
func testFMA() schema.PrecisionThroughput {
	r := &cpu.Result{Threads: 2, ISA: "avx2+fma", Timing: cpu.Timing, Throughput: []cpu.Throughput{{Operation: "fma", InputType: "fp32",
		Vector: true, Lanes: 8, OpsPerS: schema.Stat{Samples: 3, Median: 3e11, Min: 2.9e11, Max: 3.1e11}, Checked: 1024}}}
	return r.Baseline().Precisions[0]
}

// testBox is a box payload of one device that validates once its host
// baseline is present or explained.
func testBox() schema.BoxPayload {
	return schema.BoxPayload{ReportVersion: schema.ReportVersion, ProbedAt: "2026-12-03T12:00:00Z",
		Host:              schema.Host{Hostname: "matrix", OS: "linux", Arch: "amd64", LogicalCPUs: 2},
		PresentDevices:    []string{"software-0"},
		DriverVersions:    []schema.DriverBinding{{BusAddress: "software-0", DriverVersion: "Mesa 22.3.6"}},
		ProbeSuiteVersion: "0.1.0", AmbientC: new(24.5)}
}

// A software adapter's probes take 1 GiB, or a quarter of the memory the
// process may use when that is less, in whole 64 MiB, never under 64 MiB;
// unknown memory keeps 1 GiB. A GPU's limit is its driver's budget.
func TestSoftwareMemoryLimit(t *testing.T) {
	sw := Candidate{}
	sw.Adapter.Software = true
	for _, c := range []struct{ usable, want uint64 }{
		{0, 1 << 30}, {64 << 30, 1 << 30}, {4 << 30, 1 << 30}, {3 << 30, 768 << 20},
		{1000 << 20, 192 << 20}, {100 << 20, 64 << 20},
	} {
		if got := memoryLimit(sw, c.usable); got != c.want {
			t.Errorf("software, %d MiB usable: limit %d MiB, want %d MiB", c.usable>>20, got>>20, c.want>>20)
		}
	}
	dev := Candidate{Vulkan: &vk.DeviceInfo{DeviceLocalBytes: 141 << 30, DeviceLocalBudgetBytes: 139 << 30}}
	if got := memoryLimit(dev, 1<<30); got != 139<<30 {
		t.Errorf("GPU: limit %d, want its budget", got)
	}
}

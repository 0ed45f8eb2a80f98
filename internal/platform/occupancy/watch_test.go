package occupancy

import (
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/everycycle/appraise/internal/platform/nvml"
	"github.com/everycycle/appraise/schema"
)

// self is the watching process's pid in the fake trees.
const self = 100

// fakeNVML stands in for an NVIDIA card's NVML: the processes it lists
// and the utilization it reads, changed by a test as it goes.
type fakeNVML struct {
	mu    sync.Mutex
	procs []nvml.Process
	util  []float64 // one per reading; the last repeats
	err   error
}

func (f *fakeNVML) Processes() ([]nvml.Process, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]nvml.Process(nil), f.procs...), f.err
}

func (f *fakeNVML) UtilizationPercent() (float64, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.err != nil {
		return 0, f.err
	}
	if len(f.util) == 0 {
		return 0, nil
	}
	u := f.util[0]
	if len(f.util) > 1 {
		f.util = f.util[1:]
	}
	return u, nil
}

func (f *fakeNVML) set(procs ...nvml.Process) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.procs = procs
}

// clock is a fake clock; Sleep advances it and runs slept, when set (to
// change the world between the two readings before probing).
type clock struct {
	t     time.Time
	slept func()
}

func (c *clock) env(root string) Env {
	return Env{Root: root, Self: self, Now: func() time.Time { return c.t }, Sleep: func(d time.Duration) {
		c.t = c.t.Add(d)
		if c.slept != nil {
			c.slept()
		}
	}}
}

func (c *clock) advance(d time.Duration) { c.t = c.t.Add(d) }

// h200 is an NVIDIA card seen through NVML only.
func h200(v Vendor) Target { return Target{Addr: "0000:00:06.0", BDF: "0000:00:06.0", Vendor: v} }

// world is a fake /proc with appraise (self) and its cross-check child,
// a python3 and an Xorg, and the fake NVML of the H200.
func world(t *testing.T) (fakeProc, *fakeNVML, *clock) {
	f := newFakeProc(t)
	f.process(self, 1, "appraise")
	f.process(self+1, self, "mixbench-cuda")
	f.process(4242, 1, "python3")
	f.process(77, 1, "Xorg")
	return f, &fakeNVML{}, &clock{t: time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)}
}

func gib(n uint64) nvml.Process {
	return nvml.Process{PID: 4242, UsedMemoryBytes: n << 30, MemoryKnown: true, Compute: true}
}

// valid checks a record against the schema's rules.
func valid(t *testing.T, su schema.SharedUse) {
	t.Helper()
	if err := schema.Validate(su); err != nil {
		t.Errorf("record does not validate: %v\n%+v", err, su)
	}
}

// TestRefuseBeforeProbing: a process NVML lists on the device refuses the
// run before probing, named with its pid, name, memory and source.
func TestRefuseBeforeProbing(t *testing.T) {
	f, nv, c := world(t)
	nv.set(nvml.Process{PID: self, Compute: true}, nvml.Process{PID: self + 1}, gib(40))
	err := New(c.env(f.root), []Target{h200(nv)}, false).Start()
	var be *BusyError
	if !errors.Is(err, ErrBusy) || !errors.As(err, &be) {
		t.Fatalf("Start() = %v; want a BusyError", err)
	}
	if be.Stage != "" || len(be.Processes) != 1 {
		t.Errorf("BusyError = %+v; want python3 alone, before probing", be)
	}
	for _, want := range []string{"0000:00:06.0", "before probing", "pid 4242 python3 (40.0 GiB, nvml)"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
}

// TestAloneSigns: only appraise and its child on the device: no error,
// and the record says it was checked and no one else was found.
func TestAloneSigns(t *testing.T) {
	f, nv, c := world(t)
	nv.set(nvml.Process{PID: self, Compute: true}, nvml.Process{PID: self + 1})
	w := New(c.env(f.root), []Target{h200(nv)}, false)
	if err := w.Start(); err != nil {
		t.Fatal(err)
	}
	c.advance(5 * time.Second)
	if err := w.Stage("0000:00:06.0", "stream"); err != nil {
		t.Fatal(err)
	}
	su := w.Record("0000:00:06.0")
	if !su.Checked || su.OthersFound || su.Allowed || len(su.Processes) != 0 || len(su.Utilization) != 3 {
		t.Errorf("record %+v; want checked, no one else, three samples", su)
	}
	if su.Utilization[1].AtS != 0.2 || su.Utilization[2].AtS != 5.2 || su.Utilization[2].Stage != "stream" {
		t.Errorf("samples %+v", su.Utilization)
	}
	valid(t, su)
}

// TestBusyWithNoProcess: utilization over the threshold in both readings
// before probing refuses the run though no process is visible; one busy
// reading does not.
func TestBusyWithNoProcess(t *testing.T) {
	f, nv, c := world(t)
	nv.util = []float64{97, 100}
	err := New(c.env(f.root), []Target{h200(nv)}, false).Start()
	if !errors.Is(err, ErrBusy) || !strings.Contains(err.Error(), "nvml reads it 97% busy") {
		t.Fatalf("Start() = %v; want busy at 97%% by nvml", err)
	}
	nv.util = []float64{60, 0}
	if err := New(c.env(f.root), []Target{h200(nv)}, false).Start(); err != nil {
		t.Errorf("one busy reading refused the run: %v", err)
	}
}

// TestAllowSharedRecords: with sharing allowed, other users are recorded,
// from before probing and from the stage where they appeared.
func TestAllowSharedRecords(t *testing.T) {
	f, nv, c := world(t)
	nv.set(gib(40))
	nv.util = []float64{100}
	w := New(c.env(f.root), []Target{h200(nv)}, true)
	if err := w.Start(); err != nil {
		t.Fatalf("Start with sharing allowed: %v", err)
	}
	c.advance(10 * time.Second)
	nv.set(gib(41), nvml.Process{PID: 77, Graphics: true})
	if err := w.Stage("0000:00:06.0", "vulkan: host link and launch"); err != nil {
		t.Fatal(err)
	}
	su := w.Record("0000:00:06.0")
	if !su.Allowed || !su.OthersFound || len(su.Processes) != 2 {
		t.Fatalf("record %+v; want both processes, allowed", su)
	}
	p, x := su.Processes[0], su.Processes[1]
	if p.PID != 4242 || p.Name != "python3" || *p.UsedMemoryBytes != 41<<30 || p.FirstSeenS != 0 {
		t.Errorf("python3 %+v; want first seen at 0 s, 41 GiB at most", p)
	}
	if x.PID != 77 || x.Name != "Xorg" || x.UsedMemoryBytes != nil || x.FirstSeenS != 10.2 {
		t.Errorf("Xorg %+v; want first seen at 10.2 s, memory unknown", x)
	}
	valid(t, su)
}

// TestMidRunAppearanceFails: a process that appears during the run fails
// it at the next stage; a look within StageGap of the last is skipped.
func TestMidRunAppearanceFails(t *testing.T) {
	f, nv, c := world(t)
	w := New(c.env(f.root), []Target{h200(nv)}, false)
	if err := w.Start(); err != nil {
		t.Fatal(err)
	}
	nv.set(gib(20))
	if err := w.Stage("0000:00:06.0", "stream"); err != nil {
		t.Errorf("looked again within StageGap: %v", err)
	}
	c.advance(StageGap)
	err := w.Stage("box", "peer links")
	var be *BusyError
	if !errors.As(err, &be) || be.Stage != "peer links" || !strings.Contains(err.Error(), `during the run (at "peer links")`) {
		t.Fatalf("Stage() = %v; want a BusyError at the peer links", err)
	}
}

// TestFdinfoBeforeProbing: a DRM client whose engine counters advance
// between the two readings refuses the run; an idle client, appraise's
// own and its child's do not. Two descriptors of one client count once.
func TestFdinfoBeforeProbing(t *testing.T) {
	f, _, c := world(t)
	amd := Target{Addr: "0000:03:00.0", BDF: "0000:03:00.0"}
	f.fdinfo(self, 5, amdgpuFdinfo(1, 10))
	f.fdinfo(self+1, 4, amdgpuFdinfo(2, 10))
	f.fdinfo(77, 6, amdgpuFdinfo(3, 5000)) // Xorg, idle
	f.fdinfo(4242, 7, amdgpuFdinfo(40, 1000))
	f.fdinfo(4242, 8, amdgpuFdinfo(40, 1000))
	c.slept = func() {
		f.fdinfo(self, 5, amdgpuFdinfo(1, 900))
		f.fdinfo(self+1, 4, amdgpuFdinfo(2, 900))
		f.fdinfo(4242, 7, amdgpuFdinfo(40, 90000))
		f.fdinfo(4242, 8, amdgpuFdinfo(40, 90000))
	}
	err := New(c.env(f.root), []Target{amd}, false).Start()
	var be *BusyError
	if !errors.As(err, &be) || len(be.Processes) != 1 {
		t.Fatalf("Start() = %v; want python3 alone", err)
	}
	if got := be.Processes[0]; got.PID != 4242 || got.Source != schema.SharedDRMFdinfo || *got.UsedMemoryBytes != 2<<30 {
		t.Errorf("found %+v; want python3 by drm_fdinfo holding 2 GiB (one client, counted once)", got)
	}

	c.slept = nil
	w := New(c.env(f.root), []Target{amd}, false)
	if err := w.Start(); err != nil {
		t.Fatalf("idle clients refused the run: %v", err)
	}
	c.advance(StageGap)
	f.fdinfo(4242, 7, amdgpuFdinfo(40, 190000))
	if err := w.Stage(amd.Addr, "memtest"); !errors.Is(err, ErrBusy) {
		t.Errorf("a client that started work mid-run: Stage() = %v; want ErrBusy", err)
	}
}

// TestGPUBusyPercent: amdgpu's busy file counts as a reading of its own.
func TestGPUBusyPercent(t *testing.T) {
	f, _, c := world(t)
	f.write("sys/bus/pci/devices/0000:03:00.0/gpu_busy_percent", "100\n")
	amd := Target{Addr: "0000:03:00.0", BDF: "0000:03:00.0"}
	err := New(c.env(f.root), []Target{amd}, false).Start()
	if !errors.Is(err, ErrBusy) || !strings.Contains(err.Error(), "gpu_busy_percent reads it 100% busy") {
		t.Fatalf("Start() = %v", err)
	}
	f.write("sys/bus/pci/devices/0000:03:00.0/gpu_busy_percent", "0\n")
	w := New(c.env(f.root), []Target{amd}, false)
	if err := w.Start(); err != nil {
		t.Fatal(err)
	}
	su := w.Record(amd.Addr)
	if !su.Checked || len(su.Methods) != 1 || su.Methods[0] != schema.SharedGPUBusyPercent {
		t.Errorf("record %+v; want checked by gpu_busy_percent", su)
	}
	valid(t, su)
}

// TestNotChecked: a software adapter is not looked at and says why; a
// device nothing can read says what was missing.
func TestNotChecked(t *testing.T) {
	f, _, c := world(t)
	soft := Target{Addr: "software-0", Skip: "a software adapter runs on the host's CPU"}
	blind := Target{Addr: "0000:05:00.0", BDF: "0000:05:00.0", NoVendor: "NVML: nvml: NVML unavailable"}
	w := New(c.env(f.root), []Target{soft, blind}, false)
	if err := w.Start(); err != nil {
		t.Fatal(err)
	}
	if su := w.Record("software-0"); su.Checked || su.NotCheckedReason != soft.Skip {
		t.Errorf("software record %+v", su)
	}
	su := w.Record("0000:05:00.0")
	if su.Checked || !strings.Contains(su.NotCheckedReason, "NVML unavailable") || !strings.Contains(su.NotCheckedReason, "fdinfo") {
		t.Errorf("blind record %+v", su)
	}
	valid(t, su)
	valid(t, w.Record("software-0"))
}

// TestSoftwareOnlyNeverSleeps: a run of software adapters alone reads
// nothing and waits for nothing.
func TestSoftwareOnlyNeverSleeps(t *testing.T) {
	env := Env{Root: t.TempDir(), Self: self, Sleep: func(time.Duration) { t.Error("slept") }}
	w := New(env, []Target{{Addr: "software-0", Skip: "software"}}, false)
	if err := errors.Join(w.Start(), w.Stage("software-0", "stream"), w.Final()); err != nil {
		t.Fatal(err)
	}
}

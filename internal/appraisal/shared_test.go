package appraisal

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/everycycle/appraise/gpu"
	"github.com/everycycle/appraise/internal/platform/nvml"
	"github.com/everycycle/appraise/internal/platform/occupancy"
	"github.com/everycycle/appraise/schema"
)

// fakeWatch answers as told and remembers what it was asked.
type fakeWatch struct {
	start, final error
	busyAt       string // the stage whose look finds another user
	looked       []string
}

func (f *fakeWatch) Start() error { return f.start }
func (f *fakeWatch) Final() error { f.looked = append(f.looked, "final"); return f.final }
func (f *fakeWatch) Step(addr, stage string) error {
	f.looked = append(f.looked, "step "+stage)
	return nil
}

func (f *fakeWatch) Stage(addr, stage string) error {
	f.looked = append(f.looked, stage)
	if stage == f.busyAt {
		return &occupancy.BusyError{Addr: addr, Stage: stage, Processes: []schema.SharedProcess{{PID: 4242, Name: "python3", Source: schema.SharedNVML}}}
	}
	return nil
}

func (f *fakeWatch) Record(addr string) schema.SharedUse {
	return schema.SharedUse{NotCheckedReason: "record of " + addr}
}

// fakeRun is a run of two devices through the stages given, which stops
// as a probe would when its context is cancelled.
func fakeRun(stages ...string) func(context.Context, Options) (*Run, error) {
	return func(ctx context.Context, o Options) (*Run, error) {
		for _, s := range stages {
			newWorker("0000:01:00.0", o).stage(s)
			if o.Steps != nil {
				o.Steps("0000:01:00.0", s, 1, 2)
			}
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		box := schema.BoxPayload{DriverVersions: []schema.DriverBinding{{BusAddress: watchedAddrs[0]}, {BusAddress: watchedAddrs[1]}}}
		return &Run{Box: box, Cards: make([]schema.CardPayload, 2)}, nil
	}
}

var watchedAddrs = []string{"0000:01:00.0", "0000:02:00.0"}

func TestWatchedRefusesBeforeProbing(t *testing.T) {
	busy := &occupancy.BusyError{Addr: watchedAddrs[0], BusyPercent: 100, BusySource: schema.SharedNVML}
	w := &fakeWatch{start: busy}
	ran := false
	_, err := watched(context.Background(), w, Options{}, func(context.Context, Options) (*Run, error) {
		ran = true
		return nil, nil
	})
	if !errors.Is(err, ErrDeviceBusy) || ran {
		t.Fatalf("watched = %v (ran %v); want ErrDeviceBusy before the run", err, ran)
	}
}

// TestWatchedMidRun: another user found at a stage cancels the run, and
// the run's error is that user, not the cancellation.
func TestWatchedMidRun(t *testing.T) {
	w := &fakeWatch{busyAt: "memtest"}
	r, err := watched(context.Background(), w, Options{}, fakeRun("stream", "memtest", "soak"))
	var be *occupancy.BusyError
	if r != nil || !errors.As(err, &be) || be.Stage != "memtest" || errors.Is(err, context.Canceled) {
		t.Fatalf("watched = %v, %v; want the BusyError at memtest", r, err)
	}
	if slices.Contains(w.looked, "soak") {
		t.Errorf("the run went on past the busy stage: %v", w.looked)
	}
}

// TestWatchedRecords: a run that ends is looked at once more, each card
// gets its device's record, and the caller's callbacks still hear every
// stage and step.
func TestWatchedRecords(t *testing.T) {
	w := &fakeWatch{}
	var heard []string
	o := Options{
		Progress: func(_, stage string) { heard = append(heard, stage) },
		Steps:    func(_, stage string, _, _ float64) { heard = append(heard, "step "+stage) },
	}
	r, err := watched(context.Background(), w, o, fakeRun("stream", "soak"))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"stream", "step stream", "soak", "step soak"}
	if !slices.Equal(heard, want) || !slices.Equal(w.looked, append(want, "final")) {
		t.Errorf("callbacks heard %v, watch looked at %v; want %v then final", heard, w.looked, want)
	}
	for i, c := range r.Cards {
		if su := c.Capability.Environment.SharedUse; su == nil || su.NotCheckedReason != "record of "+watchedAddrs[i] {
			t.Errorf("card %d: shared_use %+v", i, su)
		}
	}
	w.final = &occupancy.BusyError{Addr: watchedAddrs[1], Stage: "end of run"}
	if _, err := watched(context.Background(), w, Options{}, fakeRun("stream")); !errors.Is(err, ErrDeviceBusy) {
		t.Errorf("a user found as the run ended: %v; want ErrDeviceBusy", err)
	}
}

// TestSharedTarget: software adapters and devices without a bus address
// are not looked at; an NVIDIA card without NVML says why.
func TestSharedTarget(t *testing.T) {
	soft := Candidate{Addr: "software-0", Adapter: gpu.AdapterInfo{Software: true}}
	if got := sharedTarget(soft, nil, nil); got.Skip != reasonSharedSoftware {
		t.Errorf("software: %+v", got)
	}
	if got := sharedTarget(Candidate{Addr: "adapter-0"}, nil, nil); got.Skip != reasonSharedNoBus {
		t.Errorf("no bus address: %+v", got)
	}
	h200 := Candidate{Addr: "0000:00:06.0", BusAddress: "0000:00:06.0", Adapter: gpu.AdapterInfo{VendorID: 0x10de}}
	got := sharedTarget(h200, nil, nvml.ErrUnavailable)
	if got.Skip != "" || got.Vendor != nil || got.NoVendor != "NVML: "+nvml.ErrUnavailable.Error() || got.BDF != "0000:00:06.0" {
		t.Errorf("NVIDIA without NVML: %+v", got)
	}
	amd := Candidate{Addr: "0000:03:00.0", BusAddress: "0000:03:00.0", Adapter: gpu.AdapterInfo{VendorID: 0x1002}}
	if got := sharedTarget(amd, nil, nvml.ErrUnavailable); got.NoVendor != "" || got.Skip != "" {
		t.Errorf("AMD: %+v; NVML is not its business", got)
	}
}

// TestRemeasureWatched: a health check's re-measure is watched as an
// appraisal is. A device busy before it starts is never re-measured;
// another user found at a stage stops it, and the error is that user;
// a re-measure alone is looked at once more as it ends and returns its
// figures.
func TestRemeasureWatched(t *testing.T) {
	re := func(stages ...string) remeasureFunc {
		return func(ctx context.Context, progress func(device, stage string)) (*schema.CapabilityVector, []string, error) {
			for _, s := range stages {
				progress(watchedAddrs[0], s)
				if err := ctx.Err(); err != nil {
					return nil, nil, err
				}
			}
			return &schema.CapabilityVector{}, []string{"a note"}, nil
		}
	}
	busy := &occupancy.BusyError{Addr: watchedAddrs[0], BusyPercent: 100, BusySource: schema.SharedNVML}
	ran := false
	_, _, err := remeasureWatched(context.Background(), &fakeWatch{start: busy}, CheckOptions{},
		func(context.Context, func(string, string)) (*schema.CapabilityVector, []string, error) {
			ran = true
			return nil, nil, nil
		})
	if !errors.Is(err, ErrDeviceBusy) || ran {
		t.Errorf("busy before: %v (ran %v); want ErrDeviceBusy before the re-measure", err, ran)
	}
	w := &fakeWatch{busyAt: "webgpu-alu"}
	v, _, err := remeasureWatched(context.Background(), w, CheckOptions{}, re("webgpu-stream", "webgpu-alu", "vulkan-hostlink"))
	var be *occupancy.BusyError
	if v != nil || !errors.As(err, &be) || be.Stage != "webgpu-alu" || errors.Is(err, context.Canceled) {
		t.Errorf("busy at a stage: %v, %v; want the BusyError at webgpu-alu", v, err)
	}
	if slices.Contains(w.looked, "vulkan-hostlink") {
		t.Errorf("the re-measure went on past the busy stage: %v", w.looked)
	}
	var heard []string
	w = &fakeWatch{}
	v, notes, err := remeasureWatched(context.Background(), w, CheckOptions{Progress: func(_, s string) { heard = append(heard, s) }}, re("webgpu-stream"))
	if err != nil || v == nil || !slices.Equal(notes, []string{"a note"}) || !slices.Equal(heard, []string{"webgpu-stream"}) ||
		!slices.Equal(w.looked, []string{"webgpu-stream", "final"}) {
		t.Errorf("alone: %v, %v, %v; heard %v, looked %v", v, notes, err, heard, w.looked)
	}
}

// TestUsableLimitedBy: other processes are named as what limited usable
// memory only when the probe stopped at the device, its driver or its
// budget and the memory they held is at least half of the shortfall
// (as when one holding 40.6 GiB of a card with 79.6 GiB left 41.3 GB,
// stopped by slow memory); our own caps, a device with no others or
// none short, and others too small to explain the shortfall keep the
// probe's reason.
func TestUsableLimitedBy(t *testing.T) {
	const gib = 1 << 30
	physical, held := uint64(81559)<<20, uint64(406*gib/10)
	for _, c := range []struct {
		why            string
		usable, others uint64
		want           string
	}{
		{"slow-memory", 41_300_000_000, held, schema.UsableOtherProcesses},
		{"driver-refused", 41_300_000_000, held, schema.UsableOtherProcesses},
		{"budget", 60 * gib, 18 * gib, schema.UsableOtherProcesses},
		{"budget", 60 * gib, 9 * gib, "budget"},
		{"slow-memory", 70 * gib, 100 << 20, "slow-memory"},
		{"slow-memory", 41_300_000_000, 0, "slow-memory"},
		{"driver-refused", physical, held, "driver-refused"},
		{"memory-limit", 1 * gib, held, "memory-limit"},
		{"chunk-count", 16 * gib, held, "chunk-count"},
	} {
		if got := usableLimitedBy(c.why, physical, c.usable, c.others); got != c.want {
			t.Errorf("%s, usable %d, others %d: %q; want %q", c.why, c.usable, c.others, got, c.want)
		}
	}
}

// TestUsableByOthers: the reason is read from the card's own figures and
// its shared_use, and the card stays valid; without shared_use or
// physical bytes it is left alone.
func TestUsableByOthers(t *testing.T) {
	physical, usable, held := uint64(80<<30), uint64(39<<30), uint64(40<<30)
	v := schema.CapabilityVector{Memory: &schema.Memory{PhysicalBytes: &physical, UsableBytes: &usable, UsableLimitedBy: "slow-memory"}}
	usableByOthers(&v)
	if v.Memory.UsableLimitedBy != "slow-memory" {
		t.Errorf("no shared_use: %q", v.Memory.UsableLimitedBy)
	}
	v.Environment.SharedUse = &schema.SharedUse{Checked: true, Methods: []string{schema.SharedNVML}, Allowed: true, OthersFound: true,
		Processes: []schema.SharedProcess{{PID: 4242, Name: "python3", Source: schema.SharedNVML, UsedMemoryBytes: &held}, {PID: 4243, Source: schema.SharedNVML}}}
	usableByOthers(&v)
	if v.Memory.UsableLimitedBy != schema.UsableOtherProcesses {
		t.Errorf("40 GiB held by another of 80: %q", v.Memory.UsableLimitedBy)
	}
	if err := schema.Validate(*v.Memory); err != nil {
		t.Error(err)
	}
}

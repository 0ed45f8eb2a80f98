package appraisal

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/everycycle/appraise/internal/crosscheck"
	"github.com/everycycle/appraise/schema"
)

// events is a log the fake device functions of one test write to from
// several goroutines.
type events struct {
	mu  sync.Mutex
	log []string
}

func (e *events) add(format string, args ...any) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.log = append(e.log, fmt.Sprintf(format, args...))
}

func (e *events) list() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return slices.Clone(e.log)
}

// fakeDevices are n candidates named dev-0 … and a soaking plan for each.
func fakeDevices(n int) ([]Candidate, []DevicePlan) {
	devs := make([]Candidate, n)
	plans := make([]DevicePlan, n)
	for i := range devs {
		devs[i].Addr = fmt.Sprintf("dev-%d", i)
		plans[i].soak = time.Second
	}
	return devs, plans
}

// hostSections is a fake device appraisal: a device-local part, then
// three host-shared sections, each logged as it enters and leaves.
func hostSections(ev *events) deviceFunc {
	return func(ctx context.Context, c Candidate, p DevicePlan, w *worker) (*schema.CapabilityVector, error) {
		ev.add("%s local", c.Addr)
		for k := range 3 {
			if err := w.inTurn(ctx, func() error {
				ev.add("enter %s %d", c.Addr, k)
				time.Sleep(time.Millisecond) // room for another worker to break in, were the turn not held
				ev.add("leave %s %d", c.Addr, k)
				return nil
			}); err != nil {
				return nil, err
			}
		}
		return &schema.CapabilityVector{}, nil
	}
}

// TestAppraiseAllSerialInTurn: --serial (and a run of one device) keeps
// today's order, one device's whole appraisal after the other's.
func TestAppraiseAllSerialInTurn(t *testing.T) {
	devs, plans := fakeDevices(2)
	ev := &events{}
	outs := appraiseAll(context.Background(), devs, plans, Options{Serial: true}, hostSections(ev))
	for _, r := range outs {
		if r.err != nil {
			t.Fatal(r.err)
		}
	}
	log := ev.list()
	first := slices.Index(log, "dev-1 local")
	if first != len(log)/2 || slices.ContainsFunc(log[:first], func(s string) bool { return strings.Contains(s, "dev-1") }) {
		t.Errorf("serial: dev-1 ran before dev-0 ended: %q", log)
	}
	if scheduleOf(Options{Serial: true}, 2) != ScheduleSerial || scheduleOf(Options{}, 1) != ScheduleSerial || scheduleOf(Options{}, 2) != ScheduleConcurrent {
		t.Error("scheduleOf")
	}
}

// TestAppraiseAllConcurrentHostInTurn: at once, the devices' local parts
// overlap (each waits in its local part for the other to reach its own),
// while their host-shared sections never do: each enter is followed by
// its own leave.
func TestAppraiseAllConcurrentHostInTurn(t *testing.T) {
	devs, plans := fakeDevices(3)
	ev := &events{}
	var met sync.WaitGroup
	met.Add(len(devs))
	host := hostSections(ev)
	outs := appraiseAll(context.Background(), devs, plans, Options{}, func(ctx context.Context, c Candidate, p DevicePlan, w *worker) (*schema.CapabilityVector, error) {
		met.Done()
		met.Wait() // every device is in its local part at once, or this never returns
		return host(ctx, c, p, w)
	})
	for _, r := range outs {
		if r.err != nil {
			t.Fatal(r.err)
		}
	}
	log := slices.DeleteFunc(ev.list(), func(s string) bool { return strings.HasSuffix(s, " local") })
	if len(log) != 3*3*2 {
		t.Fatalf("%d events: %q", len(log), log)
	}
	for k := 0; k < len(log); k += 2 {
		if enter, leave := log[k], log[k+1]; !strings.HasPrefix(enter, "enter ") || leave != "leave "+strings.TrimPrefix(enter, "enter ") {
			t.Fatalf("host sections overlap at %d: %q", k, log)
		}
	}
}

// TestAppraiseAllSoakBarrier: the soak starts when every device still in
// the run that soaks has come to it. A device that failed before its
// soak, or plans none, is not waited for; every soaker records how many
// soaked together, and a serial run records 1.
func TestAppraiseAllSoakBarrier(t *testing.T) {
	devs, plans := fakeDevices(4)
	plans[0].soak = 0 // dev-0 plans no soak
	ev := &events{}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute) // a barrier that never opens fails, not hangs
	defer cancel()
	slow := make(chan struct{})
	var arrived sync.Once
	one := func(ctx context.Context, c Candidate, p DevicePlan, w *worker) (*schema.CapabilityVector, error) {
		switch c.Addr {
		case "dev-0":
			return &schema.CapabilityVector{}, nil
		case "dev-1":
			return nil, errors.New("injected: dev-1 fails before its soak")
		case "dev-3":
			<-slow // dev-3 comes to its soak only once dev-2 waits there
			ev.add("dev-3 arrives")
		case "dev-2":
			ev.add("dev-2 arrives")
			arrived.Do(func() { close(slow) })
		}
		if err := w.soakTogether(ctx); err != nil {
			return nil, err
		}
		ev.add("%s soaks", c.Addr)
		return &schema.CapabilityVector{Thermal: &schema.ThermalEnvelope{}}, nil
	}
	outs := appraiseAll(ctx, devs, plans, Options{}, one)
	if outs[1].err == nil || outs[0].err != nil || outs[2].err != nil || outs[3].err != nil {
		t.Fatalf("outcomes: %+v", outs)
	}
	log := ev.list()
	if i, j := slices.Index(log, "dev-3 arrives"), slices.Index(log, "dev-2 soaks"); i < 0 || j < i {
		t.Errorf("dev-2 soaked before dev-3 came to its soak: %q", log)
	}
	for _, i := range []int{2, 3} {
		if got := outs[i].v.Thermal.DevicesSoakedTogether; got != 2 {
			t.Errorf("dev-%d soaked together with %d devices, want 2", i, got)
		}
	}
	if outs[0].v.Thermal != nil {
		t.Error("dev-0 planned no soak")
	}
	serial := appraiseAll(ctx, devs[2:3], plans[2:3], Options{}, one)
	if serial[0].err != nil || serial[0].v.Thermal.DevicesSoakedTogether != 1 {
		t.Errorf("one device: %+v", serial[0])
	}
}

// TestAppraiseAllInterrupted: an interrupted run leaves no device
// waiting at the barrier or for the host, and a serial run starts no
// device after it.
func TestAppraiseAllInterrupted(t *testing.T) {
	devs, plans := fakeDevices(2)
	ctx, cancel := context.WithCancel(context.Background())
	outs := appraiseAll(ctx, devs, plans, Options{}, func(ctx context.Context, c Candidate, p DevicePlan, w *worker) (*schema.CapabilityVector, error) {
		if c.Addr == "dev-1" {
			cancel() // dev-0 waits at the soak for dev-1, which never comes
			<-ctx.Done()
			return nil, ctx.Err()
		}
		return nil, w.soakTogether(ctx)
	})
	for _, r := range outs {
		if !errors.Is(r.err, context.Canceled) {
			t.Errorf("%+v", r)
		}
	}
	var ran []string
	outs = appraiseAll(ctx, devs, plans, Options{Serial: true}, func(ctx context.Context, c Candidate, p DevicePlan, w *worker) (*schema.CapabilityVector, error) {
		ran = append(ran, c.Addr)
		return &schema.CapabilityVector{}, nil
	})
	if len(ran) != 0 || !errors.Is(outs[1].err, context.Canceled) {
		t.Errorf("serial after interrupt ran %v: %+v", ran, outs)
	}
}

// TestSortOutcomes: a failed device leaves the box's drivers for its
// failed_devices, with the reason; a cross-check's disagreement keeps its
// card (unsigned later, as today).
func TestSortOutcomes(t *testing.T) {
	devs, _ := fakeDevices(3)
	box := schema.BoxPayload{}
	for _, c := range devs {
		box.DriverVersions = append(box.DriverVersions, schema.DriverBinding{BusAddress: c.Addr, DriverVersion: "1"})
	}
	v := &schema.CapabilityVector{}
	outs := []outcome{{v: v}, {err: fmt.Errorf("%w: webgpu-stream: injected", ErrProbe)}, {v: v, err: fmt.Errorf("%w: copy", crosscheck.ErrDisagree)}}
	kept, disagree, failed := sortOutcomes(devs, outs, &box)
	if !slices.Equal(kept, []int{0, 2}) || len(disagree) != 1 || len(failed) != 1 || !errors.Is(failed[0], ErrProbe) {
		t.Fatalf("kept %v, disagree %v, failed %v", kept, disagree, failed)
	}
	if len(box.DriverVersions) != 2 || box.DriverVersions[1].BusAddress != "dev-2" {
		t.Errorf("drivers %+v", box.DriverVersions)
	}
	if f := box.FailedDevices; len(f) != 1 || f[0].BusAddress != "dev-1" || !strings.Contains(f[0].Reason, "injected") {
		t.Errorf("failed devices %+v", f)
	}
}

// TestExpectedWall: in turn the devices' times add up; at once the
// longest GPU's stands for the GPUs, plus the other GPUs' host turns (each
// holds every other device idle), and software adapters, which share the
// host's cores, still add up.
func TestExpectedWall(t *testing.T) {
	gpus := []DevicePlan{{ExpectedS: 200, Mode: "quick", Schedule: ScheduleConcurrent}, {ExpectedS: 210, Mode: "full", Schedule: ScheduleConcurrent}}
	if got := ExpectedWallS(gpus); got != 210+expectedGPUTurnQuickS {
		t.Errorf("GPUs at once: %g", got)
	}
	eight := slices.Repeat(gpus[1:], 8)
	if got := ExpectedWallS(eight); got != 210+7*expectedGPUTurnFullS {
		t.Errorf("8 GPUs at once: %g", got)
	}
	sw := []DevicePlan{{ExpectedS: 20, Software: true, Schedule: ScheduleConcurrent}, {ExpectedS: 25, Software: true, Schedule: ScheduleConcurrent}}
	if got := ExpectedWallS(sw); got != 45 {
		t.Errorf("software at once: %g", got)
	}
	for i := range gpus {
		gpus[i].Schedule = ScheduleSerial
	}
	if got := ExpectedWallS(gpus); got != 410 {
		t.Errorf("GPUs in turn: %g", got)
	}
}

// A host turn waits for the probes of other devices under way and holds
// back those not yet begun, so that a host-shared figure is measured with
// every other device idle; probes of different devices overlap freely.
func TestAppraiseAllHostTurnAlone(t *testing.T) {
	tr := newTurns(0)
	a, b, c := &worker{turn: &deviceTurn{turns: tr}}, &worker{turn: &deviceTurn{turns: tr}}, &worker{turn: &deviceTurn{turns: tr}}
	ctx := context.Background()
	var log events
	inA, endA := make(chan struct{}), make(chan struct{})
	go a.onOwn(func() error { close(inA); log.add("a begins"); <-endA; log.add("a ends"); return nil })
	<-inA
	// b's probe runs beside a's.
	if err := b.onOwn(func() error { log.add("b runs beside a"); return nil }); err != nil {
		t.Fatal(err)
	}
	turned := make(chan struct{})
	go func() {
		c.inTurn(ctx, func() error { log.add("c's host turn"); return nil })
		close(turned)
	}()
	select {
	case <-turned:
		t.Fatal("c's host turn ran while a's probe was under way")
	case <-time.After(50 * time.Millisecond):
	}
	close(endA)
	<-turned
	want := []string{"a begins", "b runs beside a", "a ends", "c's host turn"}
	if got := log.list(); !slices.Equal(got, want) {
		t.Errorf("order %q, want %q", got, want)
	}
}

// A soak measured again for a consistency rule runs in the host's turn:
// it waits for the other devices' probes under way, holds back the next
// ones, and the card then says the device soaked alone, whatever the
// barrier had gathered for its first soak. In a serial run it simply runs.
func TestSoakAgainAlone(t *testing.T) {
	tr := newTurns(2)
	a, b := &worker{turn: &deviceTurn{turns: tr}}, &worker{turn: &deviceTurn{turns: tr, together: 2}}
	ctx := context.Background()
	var log events
	inA, endA := make(chan struct{}), make(chan struct{})
	go a.onOwn(func() error { close(inA); log.add("a's probe begins"); <-endA; log.add("a's probe ends"); return nil })
	<-inA
	done := make(chan error)
	go func() { done <- b.soakAgain(ctx, func() error { log.add("b soaks again"); return nil }) }()
	select {
	case err := <-done:
		t.Fatalf("b's second soak ran while a's probe was under way (%v)", err)
	case <-time.After(50 * time.Millisecond):
	}
	close(endA)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if want := []string{"a's probe begins", "a's probe ends", "b soaks again"}; !slices.Equal(log.list(), want) {
		t.Errorf("order %q, want %q", log.list(), want)
	}
	if got := b.soakedTogether(); got != 1 {
		t.Errorf("after soaking again alone: devices soaked together %d, want 1", got)
	}
	ran := false
	if err := (&worker{}).soakAgain(ctx, func() error { ran = true; return nil }); err != nil || !ran {
		t.Errorf("serial: ran %v, %v", ran, err)
	}
}

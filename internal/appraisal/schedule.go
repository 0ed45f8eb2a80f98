package appraisal

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/everycycle/appraise/internal/crosscheck"
	"github.com/everycycle/appraise/internal/probe/peer"
	"github.com/everycycle/appraise/schema"
)

// How a run shares its time among its devices (environment.schedule).
const (
	// ScheduleConcurrent probes every device at once, save the host's turns.
	ScheduleConcurrent = "concurrent"
	// ScheduleSerial probes one device after another, the others idle.
	ScheduleSerial = "serial"
)

// ErrDeviceFailed is wrapped when some devices failed and the others' made cards.
var ErrDeviceFailed = errors.New("a device failed; the other devices' cards were made")

// turns is what a concurrent run's workers share.
type turns struct {
	world sync.RWMutex
	soak  *barrier
}

// newTurns is the turns of a concurrent run whose soakers devices soak.
func newTurns(soakers int) *turns {
	return &turns{soak: &barrier{parties: soakers, release: make(chan struct{})}}
}

// deviceTurn is one worker's part of a concurrent run's turns.
type deviceTurn struct {
	*turns
	arrived  bool
	together int
}

// worker is one device's execution of its plan.
type worker struct {
	addr     string
	progress func(device, stage string)
	steps    func(device, stage string, done, total float64)
	fault    func(device, probe string) error
	turn     *deviceTurn // nil in a serial run
}

// newWorker is the worker of device addr in a run with o's hooks.
func newWorker(addr string, o Options) *worker {
	return &worker{addr: addr, progress: o.Progress, steps: o.Steps, fault: o.fault}
}

// stage reports that the device (or "host", "box") entered stage.
func (w *worker) stage(stage string) {
	if w.progress != nil {
		w.progress(w.addr, stage)
	}
}

// ended tells the run's steps that the device's stage is over.
func (w *worker) ended(stage string) {
	if w.steps != nil {
		w.steps(w.addr, stage, 1, 1)
	}
}

// lines is a probe's progress callback; nil without progress.
func (w *worker) lines(prefix string) func(string) {
	if w.progress == nil {
		return nil
	}
	return func(line string) { w.progress(w.addr, prefix+line) }
}

// stepsOf is a long probe's steps callback; nil without steps.
func (w *worker) stepsOf() func(stage string, done, total float64) {
	if w.steps == nil {
		return nil
	}
	return func(stage string, done, total float64) { w.steps(w.addr, stage, done, total) }
}

// inTurn runs f, a host-shared section, with every other device idle.
func (w *worker) inTurn(ctx context.Context, f func() error) error {
	if w.turn == nil {
		return f()
	}
	w.turn.world.Lock()
	defer w.turn.world.Unlock()
	if err := ctx.Err(); err != nil {
		return err
	}
	return f()
}

// onOwn runs f, a probe of the worker's own device, never in a host turn.
func (w *worker) onOwn(f func() error) error {
	if w.turn == nil {
		return f()
	}
	w.turn.world.RLock()
	defer w.turn.world.RUnlock()
	return f()
}

// soakTogether waits until every soaking device has come to its soak.
func (w *worker) soakTogether(ctx context.Context) error {
	if w.turn == nil || w.turn.arrived {
		return nil
	}
	w.stage("soak: waiting for every device")
	w.turn.arrived = true
	n, err := w.turn.soak.wait(ctx)
	w.turn.together = n
	return err
}

// soakAgain runs f, a soak measured again, in the host's turn.
func (w *worker) soakAgain(ctx context.Context, f func() error) error {
	err := w.inTurn(ctx, f)
	if w.turn != nil {
		w.turn.together = 1
	}
	return err
}

// soakedTogether is how many devices soaked at once with this one.
func (w *worker) soakedTogether() int {
	if w.turn == nil || w.turn.together == 0 {
		return 1
	}
	return w.turn.together
}

// leaveSoak takes a worker that will not soak out of the barrier.
func (w *worker) leaveSoak() {
	if w.turn != nil && !w.turn.arrived {
		w.turn.arrived = true
		w.turn.soak.leave()
	}
}

// barrier, used once, releases its parties when every one still in arrived.
type barrier struct {
	mu       sync.Mutex
	parties  int
	arrived  int
	released bool
	together int
	release  chan struct{}
}

// wait blocks until the release or ctx; it returns how many parties arrived.
func (b *barrier) wait(ctx context.Context) (int, error) {
	b.mu.Lock()
	b.arrived++
	b.releaseIfDone()
	b.mu.Unlock()
	select {
	case <-b.release:
	case <-ctx.Done():
	}
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.together, nil
}

// leave takes one party out; after the release it changes nothing.
func (b *barrier) leave() {
	b.mu.Lock()
	defer b.mu.Unlock()
	if !b.released {
		b.parties--
		b.releaseIfDone()
	}
}

func (b *barrier) releaseIfDone() {
	if !b.released && b.arrived >= b.parties {
		b.released, b.together = true, b.arrived
		close(b.release)
	}
}

// concurrent says whether a run of n devices with o runs them at once.
func concurrent(o Options, n int) bool { return !o.Serial && n > 1 }

// scheduleOf is environment.schedule for a run of n devices with o.
func scheduleOf(o Options, n int) string {
	if concurrent(o, n) {
		return ScheduleConcurrent
	}
	return ScheduleSerial
}

// deviceFunc appraises c by p as w; with crosscheck.ErrDisagree it is unsignable.
type deviceFunc func(ctx context.Context, c Candidate, p DevicePlan, w *worker) (*schema.CapabilityVector, error)

// outcome is one device's appraisal and how long it took.
type outcome struct {
	v    *schema.CapabilityVector
	err  error
	took time.Duration
}

// appraiseAll runs one on every device; a failure stops only its device.
func appraiseAll(ctx context.Context, devs []Candidate, plans []DevicePlan, o Options, one deviceFunc) []outcome {
	out := make([]outcome, len(devs))
	now := o.now()
	run := func(i int, w *worker) {
		defer w.leaveSoak()
		t0 := now()
		out[i].v, out[i].err = one(ctx, devs[i], plans[i], w)
		out[i].took = now().Sub(t0)
		if v := out[i].v; v != nil && v.Thermal != nil {
			v.Thermal.DevicesSoakedTogether = w.soakedTogether()
		}
	}
	if !concurrent(o, len(devs)) {
		for i, c := range devs {
			if ctx.Err() != nil {
				out[i].err = ctx.Err()
				continue
			}
			run(i, newWorker(c.Addr, o))
		}
		return out
	}
	soakers := 0
	for _, p := range plans {
		if p.soak > 0 {
			soakers++
		}
	}
	t := newTurns(soakers)
	var wg sync.WaitGroup
	for i, p := range plans {
		w := newWorker(devs[i].Addr, o)
		w.turn = &deviceTurn{turns: t, arrived: p.soak == 0}
		wg.Go(func() { run(i, w) })
	}
	wg.Wait()
	return out
}

// sortOutcomes splits outs into kept indices and errors, listing failures in box.
func sortOutcomes(devs []Candidate, outs []outcome, box *schema.BoxPayload) (kept []int, disagree, failed []error) {
	var drivers []schema.DriverBinding
	for i, r := range outs {
		c := devs[i]
		switch {
		case r.err == nil:
		case r.v != nil && errors.Is(r.err, crosscheck.ErrDisagree):
			disagree = append(disagree, fmt.Errorf("%s: %w", c.Addr, r.err))
		default:
			failed = append(failed, fmt.Errorf("%s (%s): %w", c.Addr, c.Adapter.DisplayName(), r.err))
			box.FailedDevices = append(box.FailedDevices, schema.FailedDevice{BusAddress: c.Addr, Reason: clip(r.err.Error())})
			continue
		}
		kept = append(kept, i)
		drivers = append(drivers, box.DriverVersions[i])
	}
	box.DriverVersions = drivers
	return kept, disagree, failed
}

// peersAlone is why the one card left of n devices has no peer link.
func peersAlone(n int) schema.Omission {
	if n == 1 {
		return peer.PeersOmission()
	}
	return schema.Omission{Field: "interconnect.peers", Reason: "the run's other devices failed (the box's failed_devices): no peer to measure"}
}

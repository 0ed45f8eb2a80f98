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
	// ScheduleConcurrent probes every device at once, one worker per
	// device; the host-shared figures are measured one device at a time
	// and the soak is held by every device together.
	ScheduleConcurrent = "concurrent"
	// ScheduleSerial probes one device after another, the others idle.
	ScheduleSerial = "serial"
)

// ErrDeviceFailed is wrapped when some of a run's devices failed and
// the others' cards were made: the run can be signed and written, and
// its box lists each failed device with the reason (failed_devices).
var ErrDeviceFailed = errors.New("a device failed; the other devices' cards were made")

// turns is what a concurrent run's device workers share: the host's turn
// and the soak's barrier. world is held by one worker alone while it
// measures what the devices share (inTurn), and by every worker at once
// while each runs a probe of its own device (onOwn): a host-shared figure
// is measured with the other devices idle, as in a serial run, and a
// turn waits for the probes under way to end (a waiting turn holds back
// the probes not yet begun). A worker never waits for another while it
// holds world: the soak's barrier is met outside it.
type turns struct {
	world sync.RWMutex
	soak  *barrier
}

// newTurns is the turns of a concurrent run whose soakers devices soak.
func newTurns(soakers int) *turns {
	return &turns{soak: &barrier{parties: soakers, release: make(chan struct{})}}
}

// deviceTurn is one worker's part of a concurrent run: the turns it
// shares and whether it has reached the soak's barrier.
type deviceTurn struct {
	*turns
	arrived  bool
	together int
}

// worker is one device's execution of its plan: the device its progress
// lines name, the run's progress hooks and test fault, and, in a
// concurrent run, its part of the turns. appraiseAll makes one per
// device. It holds no setting: those are the plan's (DevicePlan).
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

// stage reports that the device (or "host", "box": what the run does
// beside its devices) entered stage, when the run has progress. Every
// step that takes more than a moment reports itself, so the stage shown
// is the stage running.
func (w *worker) stage(stage string) {
	if w.progress != nil {
		w.progress(w.addr, stage)
	}
}

// ended tells the run's steps, when it has them, that the device's stage
// is over: a long probe's progress goes with it, wherever its last step
// left it.
func (w *worker) ended(stage string) {
	if w.steps != nil {
		w.steps(w.addr, stage, 1, 1)
	}
}

// lines is a probe's progress callback: each line a stage of the device,
// after prefix; nil when the run has no progress.
func (w *worker) lines(prefix string) func(string) {
	if w.progress == nil {
		return nil
	}
	return func(line string) { w.progress(w.addr, prefix+line) }
}

// stepsOf is a long probe's steps callback for the device; nil when the
// run has none.
func (w *worker) stepsOf() func(stage string, done, total float64) {
	if w.steps == nil {
		return nil
	}
	return func(stage string, done, total float64) { w.steps(w.addr, stage, done, total) }
}

// inTurn runs f, a host-shared section, with the host to itself when the
// run is concurrent: one device at a time measures what the devices share.
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

// onOwn runs f, a probe of the worker's own device, beside the other
// workers' probes but never during a host turn.
func (w *worker) onOwn(f func() error) error {
	if w.turn == nil {
		return f()
	}
	w.turn.world.RLock()
	defer w.turn.world.RUnlock()
	return f()
}

// soakTogether waits, in a concurrent run, until every device still
// appraised that soaks has come to its soak, so that they all start
// together.
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

// soakAgain runs f, a soak measured again for a consistency rule, in the
// host's turn: with every other device idle, as the card then says
// (devices_soaked_together 1). The barrier that started the first soak
// has opened, so a second soak beside whatever the other devices run
// would be neither alone nor together.
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

// leaveSoak takes a worker that will not come to the soak (its device
// failed, or it has none) out of the barrier, so the others do not wait
// for it.
func (w *worker) leaveSoak() {
	if w.turn != nil && !w.turn.arrived {
		w.turn.arrived = true
		w.turn.soak.leave()
	}
}

// barrier lets its parties go when every one still in has arrived; a
// party may leave instead. It is used once.
type barrier struct {
	mu       sync.Mutex
	parties  int
	arrived  int
	released bool
	together int
	release  chan struct{}
}

// wait arrives and blocks until the barrier releases; it returns how many
// parties arrived, or ctx's error once ctx is done, released or not.
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

// scheduleOf is environment.schedule for a run of n devices with o: a
// run of one device is serial, as nothing ran beside it.
func scheduleOf(o Options, n int) string {
	if concurrent(o, n) {
		return ScheduleConcurrent
	}
	return ScheduleSerial
}

// deviceFunc appraises device c by its plan p, as worker w; a vector
// returned with an error wrapping crosscheck.ErrDisagree is a card that
// cannot be signed.
type deviceFunc func(ctx context.Context, c Candidate, p DevicePlan, w *worker) (*schema.CapabilityVector, error)

// outcome is what one device's appraisal gave, and how long it took.
type outcome struct {
	v    *schema.CapabilityVector
	err  error
	took time.Duration
}

// appraiseAll runs one on every device of devs by its plan, each as its
// own worker: in turn (serial), or each on its own goroutine (concurrent),
// those that soak meeting at the soak's barrier. A device's failure does
// not stop the others; an interrupted run stops them all (ctx).
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

// sortOutcomes sorts the devices' outcomes: kept are the indices of those
// that give a card (a cross-check's disagreement, in disagree, still
// does); failed are the others' errors, each naming its device, and box
// lists them (failed_devices) and keeps only the kept devices' drivers.
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

// peersAlone is why the one card left of a run of n devices has no peer
// link.
func peersAlone(n int) schema.Omission {
	if n == 1 {
		return peer.PeersOmission()
	}
	return schema.Omission{Field: "interconnect.peers", Reason: "the run's other devices failed (the box's failed_devices): no peer to measure"}
}

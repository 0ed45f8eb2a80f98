package gpu

import (
	"fmt"
	"time"

	"github.com/cogentcore/webgpu/wgpu"
)

// How the host waits for the device. wgpu-native v22's blocking wait
// (Device.Poll with wait set) gives up after 5 s (wgpu-core's
// CLEANUP_WAIT_MS) and then treats every submission up to the one waited
// for as finished: it recycles their command buffers and frees what only
// they held while the device may still be running them. lavapipe runs a
// submission on CPU threads; on a loaded machine one outlasts 5 s, and its
// queue thread then executes recycled commands and the process dies with
// SIGSEGV (TestWaitOutlastsWgpuTimeout, scripts/repro-wait-timeout). So
// the host never blocks inside wgpu: it polls without waiting, which
// retires only what the device's fence says is done, and runs callbacks
// (notices) that say when a submission or a mapping is done; between polls
// it spins or sleeps.

// waitMode is how the host waits for the queue or a mapping. Which is
// faster depends on the driver: sleeping between polls leaves the CPU to
// others (on a software adapter, to the device's own threads) but notices
// the end later; spinning notices it at once and costs a core. Probes that
// time short work measure both and keep the faster; everything else
// sleeps.
type waitMode int

const (
	// waitBlock: polls with sleeps between them (pollPause).
	waitBlock waitMode = iota
	// waitSpin: polls back to back for at most spinLimit, then as
	// waitBlock.
	waitSpin
)

// String names the wait as results record it.
func (w waitMode) String() string {
	if w == waitSpin {
		return "poll-spin"
	}
	return "poll-sleep"
}

const (
	// spinLimit is the longest a waitSpin wait spins before it sleeps.
	spinLimit = 2 * time.Millisecond
	// pollPauseMin and pollPauseMax bound the sleep between two polls;
	// within them it is 1/pollPauseShare of the time waited so far, so the
	// host notices the end of long work at most that share late.
	pollPauseMin   = 10 * time.Microsecond
	pollPauseMax   = time.Millisecond
	pollPauseShare = 256
	// defaultHangLimit is how long a wait lasts before the device is taken
	// to be hung. No submission of ours is sized anywhere near it.
	defaultHangLimit = 10 * time.Minute
)

// pollPause is the sleep before the next poll after waiting for waited.
func pollPause(waited time.Duration) time.Duration {
	return min(max(waited/pollPauseShare, pollPauseMin), pollPauseMax)
}

// spinUntil calls done until it reports true or spinLimit has passed, and
// reports whether it saw done.
func spinUntil(done func() bool) bool {
	for start := time.Now(); time.Since(start) < spinLimit; {
		if done() {
			return true
		}
	}
	return false
}

// waitFor polls the device without blocking until done reports true,
// spinning first when w is waitSpin, then sleeping between polls. It
// returns the device's loss or uncaptured error as soon as one is
// recorded. A wait longer than the hang limit marks the device hung (its
// Release then leaves it allocated: the work may still run) and fails.
func (d *Device) waitFor(w waitMode, done func() bool) error {
	poll := func() bool {
		d.dev.Poll(false, nil)
		return done()
	}
	if w == waitSpin && spinUntil(poll) {
		return d.sink.err()
	}
	start := time.Now()
	for !poll() {
		if err := d.sink.err(); err != nil {
			return err
		}
		waited := time.Since(start)
		if waited > d.hangLimit() {
			d.hung = true
			return fmt.Errorf("%w: submitted work not done after %v", ErrDeviceHung, waited.Round(time.Second))
		}
		time.Sleep(pollPause(waited))
	}
	return d.sink.err()
}

// await waits, the way w says, until n is seen, frees it and returns the
// status its callback passed. A notice the wait gave up on stays
// allocated (notice.free).
func (d *Device) await(w waitMode, n *notice) (uint32, error) {
	if err := d.waitFor(w, n.seen); err != nil {
		return 0, err
	}
	st := n.status()
	n.free()
	return st, nil
}

// mapSucceeded is the status of a mapping that succeeded, as notices
// record it.
const mapSucceeded = uint32(wgpu.BufferMapAsyncStatusSuccess)

// hangLimit is how long waitFor waits: defaultHangLimit unless a test set
// a shorter one.
func (d *Device) hangLimit() time.Duration {
	if d.hangAfter > 0 {
		return d.hangAfter
	}
	return defaultHangLimit
}

package gpu

import (
	"fmt"
	"time"

	"github.com/cogentcore/webgpu/wgpu"
)

// The host never blocks inside wgpu-native: its blocking poll gives up
// after a few seconds and recycles command buffers the device may still be
// running. It polls without waiting, sleeping between polls.

const (
	// The sleep between two polls is 1/pollPauseShare of the time waited
	// so far, within [pollPauseMin, pollPauseMax].
	pollPauseMin   = 10 * time.Microsecond
	pollPauseMax   = time.Millisecond
	pollPauseShare = 256
	// defaultHangLimit is how long a wait lasts before the device is taken
	// to be hung.
	defaultHangLimit = 10 * time.Minute
)

func pollPause(waited time.Duration) time.Duration {
	return min(max(waited/pollPauseShare, pollPauseMin), pollPauseMax)
}

// waitFor polls the device until done reports true. It returns the
// device's loss or uncaptured error as soon as one is recorded. A wait
// longer than the hang limit marks the device hung (Release then leaves it
// allocated) and returns an error wrapping ErrDeviceHung.
func (d *Device) waitFor(done func() bool) error {
	poll := func() bool {
		d.dev.Poll(false, nil)
		return done()
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

// await waits until n is seen, frees it and returns the status its
// callback passed. A notice the wait gave up on stays allocated.
func (d *Device) await(n *notice) (uint32, error) {
	if err := d.waitFor(n.seen); err != nil {
		return 0, err
	}
	st := n.status()
	n.free()
	return st, nil
}

const mapSucceeded = uint32(wgpu.BufferMapAsyncStatusSuccess)

func (d *Device) hangLimit() time.Duration {
	if d.hangAfter > 0 {
		return d.hangAfter
	}
	return defaultHangLimit
}

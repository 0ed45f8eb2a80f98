package gpu

import (
	"errors"
	"testing"
)

// TestEmptyRoundTrip: the calibration's launch overhead is a plausible
// time, every dispatch it timed counted by the kernel.
func TestEmptyRoundTrip(t *testing.T) {
	d := newDevice(t)
	s, err := d.emptyRoundTripS(t.Context(), 5)
	if err != nil {
		t.Fatal(err)
	}
	if !(s > 1e-7) || s > 1 {
		t.Errorf("empty round trip %g s", s)
	}
}

// TestLauncherCatchesLostDispatch: a counter short of the dispatches sent
// fails the check.
func TestLauncherCatchesLostDispatch(t *testing.T) {
	d := newDevice(t)
	l, err := newLauncher(d, func(what string, off uint64, chunk []byte) []byte {
		chunk[0]-- // as if one dispatch had not run
		return chunk
	})
	if err != nil {
		t.Fatal(err)
	}
	defer l.release()
	for range 3 {
		if _, err := l.roundTrip(); err != nil {
			t.Fatal(err)
		}
	}
	if err := l.checkCounter(); !errors.Is(err, ErrCheckFailed) {
		t.Fatalf("got %v, want ErrCheckFailed", err)
	}
}

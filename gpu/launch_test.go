package gpu

import (
	"errors"
	"testing"

	"github.com/everycycle/appraise/schema"
)

func TestLaunchQuick(t *testing.T) {
	d := newDevice(t)
	res, err := MeasureLaunch(t.Context(), d)
	if err != nil {
		t.Fatal(err)
	}
	e, u := res.EmptyDispatchRoundTripS, res.Upload1MiBS
	t.Logf("empty dispatch round trip: median %.1f µs (min %.1f, max %.1f, %d samples); 1 MiB upload: median %.1f µs (min %.1f, max %.1f, %d samples); %s",
		e.Median*1e6, e.Min*1e6, e.Max*1e6, e.Samples, u.Median*1e6, u.Min*1e6, u.Max*1e6, u.Samples, res.Timing)
	lim := launchLimits(true)
	for name, s := range map[string]struct{ min, med, max float64 }{
		"empty": {e.Min, e.Median, e.Max}, "upload": {u.Min, u.Median, u.Max},
	} {
		// Plausibility, not expectation: a round trip takes more than 100 ns
		// and less than a second.
		if !(s.min > 1e-7) || s.min > s.med || s.med > s.max || s.max > 1 {
			t.Errorf("%s: implausible times %+v", name, s)
		}
	}
	if e.Samples < lim.MinSamples || u.Samples < lim.MinSamples {
		t.Errorf("too few samples: %d, %d", e.Samples, u.Samples)
	}
	if res.Dispatches <= uint64(e.Samples) || res.UploadsChecked <= u.Samples {
		t.Errorf("checks did not cover the samples: %d dispatches, %d uploads", res.Dispatches, res.UploadsChecked)
	}
	if res.Timing != schema.TimingHostWallClock {
		t.Errorf("timing %q", res.Timing)
	}
}

func TestLaunchCatchesLostDispatch(t *testing.T) {
	d := newDevice(t)
	tamper := func(what string, off uint64, chunk []byte) []byte {
		if what == "counter" {
			chunk[0]-- // as if one dispatch had not run
		}
		return chunk
	}
	if _, err := measureLaunch(t.Context(), d, tamper); !errors.Is(err, ErrCheckFailed) {
		t.Fatalf("got %v, want ErrCheckFailed", err)
	}
}

func TestLaunchCatchesCorruptUpload(t *testing.T) {
	d := newDevice(t)
	tamper := func(what string, off uint64, chunk []byte) []byte {
		if what == "upload" {
			chunk[len(chunk)/2] ^= 0x80
		}
		return chunk
	}
	if _, err := measureLaunch(t.Context(), d, tamper); !errors.Is(err, ErrCheckFailed) {
		t.Fatalf("got %v, want ErrCheckFailed", err)
	}
}

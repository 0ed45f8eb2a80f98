package gpu

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/everycycle/appraise/internal/stats"
	"github.com/everycycle/appraise/schema"
)

// TestPieceReps: a piece is at most soakPieceS, at least half of it when a
// dispatch is shorter, and at least one dispatch.
func TestPieceReps(t *testing.T) {
	cases := []struct {
		dispatchS float64
		want      int
	}{
		{0.03, 3}, {0.05, 2}, {0.06, 1}, {0.25, 1}, {1e-3, 100}, {1e-6, soakMaxReps}, {0, 1},
	}
	for _, c := range cases {
		if got := pieceReps(c.dispatchS); got != c.want {
			t.Errorf("pieceReps(%v) = %d, want %d", c.dispatchS, got, c.want)
		}
	}
}

// TestSoak runs a 1.5 s soak, timed each way the device can be timed, and
// checks its points: spanning the duration, At increasing, rates positive,
// every one reported through OnPoint, the output checked.
func TestSoak(t *testing.T) {
	d := newDevice(t)
	modes := []schema.TimingMethod{d.timing}
	if d.timing == schema.TimingGPUTimestamp {
		modes = append(modes, schema.TimingQueueWallClock)
	}
	for _, m := range modes {
		t.Run(string(m), func(t *testing.T) {
			defer func(was schema.TimingMethod) { d.timing = was }(d.timing)
			d.timing = m
			dur := 1500 * time.Millisecond
			if m != modes[0] {
				dur = 600 * time.Millisecond
			}
			checkSoak(t, d, dur)
		})
	}
}

// checkSoak runs a soak of dur and checks its result.
func checkSoak(t *testing.T, d *Device, dur time.Duration) {
	var seen []SoakPoint
	s, err := runSoak(t.Context(), d, SoakOptions{Duration: dur, OnPoint: func(at time.Duration, r float64) {
		seen = append(seen, SoakPoint{At: at, OpsPerS: r})
	}}, newALULimits(true), nil)
	if err != nil {
		t.Fatal(err)
	}
	res := s.res
	if res.Kernel != "fp32-fma" || res.Timing != d.timing || res.Checked != uint64(s.groups)*aluWG || res.Checked == 0 {
		t.Errorf("result %s, %s, %d checked; want fp32-fma, %s, %d", res.Kernel, res.Timing, res.Checked, d.timing, uint64(s.groups)*aluWG)
	}
	if !slices.Equal(seen, res.Points) {
		t.Errorf("OnPoint saw %d points, result has %d", len(seen), len(res.Points))
	}
	checkPoints(t, res, dur, s.pieceS)
	logSoak(t, s)
}

// checkPoints: at least two points, At strictly increasing from within a
// piece of the start to within a piece of dur, every rate positive.
func checkPoints(t *testing.T, res SoakResult, dur, piece time.Duration) {
	t.Helper()
	ps := res.Points
	if len(ps) < 2 {
		t.Fatalf("%d points", len(ps))
	}
	for i, p := range ps {
		if !positiveFinite(p.OpsPerS) || p.At <= 0 || (i > 0 && p.At <= ps[i-1].At) {
			t.Errorf("point %d: %v at %v (previous at %v)", i, p.OpsPerS, p.At, ps[max(i-1, 0)].At)
		}
	}
	slack := 2*piece + 100*time.Millisecond // the first piece may run at cold clocks
	if ps[0].At > slack || res.Duration != ps[len(ps)-1].At || res.Duration < dur-slack || res.Duration > dur+slack {
		t.Errorf("points from %v to %v (duration %v), want about 0 to %v", ps[0].At, ps[len(ps)-1].At, res.Duration, dur)
	}
}

// logSoak logs the soak's figures and, with GPU timestamps, the GPU's
// idle time between pieces.
func logSoak(t *testing.T, s *soaker) {
	rates := make([]float64, len(s.res.Points))
	for i, p := range s.res.Points {
		rates[i] = p.OpsPerS
	}
	st, _ := stats.Summarize(rates)
	t.Logf("%s, %d pieces of %d dispatches (%d groups x %d trips), last piece %v, over %v: median %.4g ops/s (min %.4g, max %.4g), %d invocations checked",
		s.res.Timing, len(rates), s.reps, s.groups, s.iters, s.pieceS, s.res.Duration, st.Median, st.Min, st.Max, s.res.Checked)
	if len(s.gaps) == 0 {
		return
	}
	t.Logf("GPU idle between pieces: median %.3g ms, max %.3g ms over %d gaps", 1e3*stats.Median(s.gaps), 1e3*slices.Max(s.gaps), len(s.gaps))
	if idle := sum(s.gaps); idle > 0.05*s.res.Duration.Seconds() {
		t.Errorf("the GPU idled %.3g s of %v between pieces", idle, s.res.Duration)
	}
}

// sum adds xs.
func sum(xs []float64) float64 {
	var s float64
	for _, x := range xs {
		s += x
	}
	return s
}

// TestSoakCancel: cancelling the context mid-soak stops it within the
// pieces already queued and returns the context's error; an already
// cancelled context returns at once.
func TestSoakCancel(t *testing.T) {
	d := newDevice(t)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	var cancelled time.Time
	_, err := Soak(ctx, d, SoakOptions{Duration: time.Minute, OnPoint: func(time.Duration, float64) {
		if cancelled.IsZero() {
			cancelled = time.Now()
			cancel()
		}
	}})
	if !errors.Is(err, context.Canceled) || cancelled.IsZero() {
		t.Fatalf("err %v, cancelled %t", err, !cancelled.IsZero())
	}
	if took := time.Since(cancelled); took > 2*soakDepth*seconds(soakPieceS)+200*time.Millisecond {
		t.Errorf("stopped %v after the cancel", took)
	} else {
		t.Logf("stopped %v after the cancel", took)
	}
	if _, err := Soak(ctx, d, SoakOptions{Duration: time.Minute}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled context: %v", err)
	}
}

// TestSoakCatchesFault corrupts one word of the last piece's output as it
// is read back and expects ErrCheckFailed and no result; a zero duration
// is refused.
func TestSoakCatchesFault(t *testing.T) {
	d := newDevice(t)
	tamper := func(kernel string, off uint64, chunk []byte) []byte {
		if off == 0 && len(chunk) > 4*77 {
			chunk[4*77] ^= 0x10
		}
		return chunk
	}
	res, err := soak(t.Context(), d, SoakOptions{Duration: 200 * time.Millisecond}, newALULimits(true), tamper)
	if !errors.Is(err, ErrCheckFailed) || res.Points != nil {
		t.Fatalf("got %d points, err %v; want ErrCheckFailed and no result", len(res.Points), err)
	}
	t.Log(err)
	if _, err := Soak(t.Context(), d, SoakOptions{}); !errors.Is(err, errSoakDuration) {
		t.Errorf("zero duration: %v", err)
	}
}

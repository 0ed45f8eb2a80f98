package gpu

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/everycycle/appraise/internal/measure/stats"
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
// checks what holds however busy the host is: one point per piece
// submitted, At strictly increasing, rates positive, every point reported
// through OnPoint, the output checked, and with the host clock the pieces'
// times fitting inside the soak. Where the load ends and how long the GPU
// idles depend on the host; the plan that decides them is tested on a
// simulated queue (soak_plan_test.go).
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
	}}, newALULimits(quickEffort.ALU), nil)
	if err != nil {
		t.Fatal(err)
	}
	res := s.plan.res
	if res.Kernel != "fp32-fma" || res.Timing != d.timing || res.Checked != uint64(s.groups)*aluWG || res.Checked == 0 {
		t.Errorf("result %s, %s, %d checked; want fp32-fma, %s, %d", res.Kernel, res.Timing, res.Checked, d.timing, uint64(s.groups)*aluWG)
	}
	if !slices.Equal(seen, res.Points) {
		t.Errorf("OnPoint saw %d points, result has %d", len(seen), len(res.Points))
	}
	if len(res.Points) != s.plan.n || len(res.Points) != s.n || !s.plan.ended {
		t.Errorf("%d points of %d pieces submitted (%d by the device), last submitted %t", len(res.Points), s.plan.n, s.n, s.plan.ended)
	}
	checkPoints(t, res)
	if res.Timing != schema.TimingGPUTimestamp {
		checkWallTimes(t, res, s.plan.ops)
	}
	logSoak(t, s)
}

// checkPoints: at least one point, At strictly increasing from above 0,
// every rate positive, Duration the last point's At.
func checkPoints(t *testing.T, res SoakResult) {
	t.Helper()
	ps := res.Points
	if len(ps) == 0 {
		t.Fatal("no points")
	}
	for i, p := range ps {
		if !positiveFinite(p.OpsPerS) || p.At <= 0 || (i > 0 && p.At <= ps[i-1].At) {
			t.Errorf("point %d: %v at %v (previous at %v)", i, p.OpsPerS, p.At, ps[max(i-1, 0)].At)
		}
	}
	if res.Duration != ps[len(ps)-1].At {
		t.Errorf("duration %v, last point at %v", res.Duration, ps[len(ps)-1].At)
	}
}

// checkWallTimes: timed by the host, each piece's time is an interval of
// its own between the first submission and the last piece done, so the
// times (ops per piece over each rate) add up to at most the Duration.
func checkWallTimes(t *testing.T, res SoakResult, ops float64) {
	t.Helper()
	var total float64
	for _, p := range res.Points {
		total += ops / p.OpsPerS
	}
	if total > res.Duration.Seconds()*(1+1e-9) {
		t.Errorf("pieces timed %.6g s in all, more than the %v the soak ran", total, res.Duration)
	}
}

// logSoak logs the soak's figures.
func logSoak(t *testing.T, s *soaker) {
	res := s.plan.res
	rates := make([]float64, len(res.Points))
	for i, p := range res.Points {
		rates[i] = p.OpsPerS
	}
	st, _ := stats.Summarize(rates)
	t.Logf("%s, %d pieces of %d dispatches, last piece %v, over %v: median %.4g ops/s (min %.4g, max %.4g), %d invocations checked",
		res.Timing, len(rates), s.reps, s.plan.pieceS, res.Duration, st.Median, st.Min, st.Max, res.Checked)
}

// TestSoakCancel: cancelling the context from OnPoint stops the soak with
// the context's error: no point after the cancel, and no piece submitted
// after it (at most the soakDepth already queued beyond the first); an
// already cancelled context returns at once.
func TestSoakCancel(t *testing.T) {
	d := newDevice(t)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	points := 0
	s, err := runSoak(ctx, d, SoakOptions{Duration: time.Minute, OnPoint: func(time.Duration, float64) {
		points++
		cancel()
	}}, newALULimits(quickEffort.ALU), nil)
	if !errors.Is(err, context.Canceled) || points != 1 || s == nil {
		t.Fatalf("err %v, %d points", err, points)
	}
	if s.plan.n > points+soakDepth || s.n != s.plan.n {
		t.Errorf("%d pieces submitted (%d by the device) for %d points; want at most %d", s.plan.n, s.n, points, points+soakDepth)
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
	res, err := soak(t.Context(), d, SoakOptions{Duration: 200 * time.Millisecond}, newALULimits(quickEffort.ALU), tamper)
	if !errors.Is(err, ErrCheckFailed) || res.Points != nil {
		t.Fatalf("got %d points, err %v; want ErrCheckFailed and no result", len(res.Points), err)
	}
	t.Log(err)
	if _, err := Soak(t.Context(), d, SoakOptions{}); !errors.Is(err, errSoakDuration) {
		t.Errorf("zero duration: %v", err)
	}
}

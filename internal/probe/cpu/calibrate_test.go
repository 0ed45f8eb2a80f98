package cpu

import (
	"context"
	"errors"
	"math"
	"testing"

	"github.com/everycycle/appraise/internal/measure/stats"
)

// quickEffort is what internal/appraisal's plan gives the probe under --quick.
var quickEffort = Effort{Samples: 3, SampleS: 0.052, ArrayLLCs: 2}

func TestPlanFor(t *testing.T) {
	quick, full := planFor(quickEffort), planFor(Effort{})
	if quick.samples < 3 || full.samples < 5 {
		t.Errorf("samples: quick %d, full %d; want at least 3 and 5", quick.samples, full.samples)
	}
	for _, p := range []samplePlan{quick, full, planFor(Effort{SampleS: 1e-3})} {
		if p.targetS < minSampleS {
			t.Errorf("plan %+v aims below the %v s minimum", p, minSampleS)
		}
	}
	// The timed samples alone must leave room in the budgets (1.5 s quick,
	// 5 s full) for setup, trials and checks.
	kernels := float64(len(streamTable()) + len(fmaTable()))
	if s := kernels * float64(quick.samples) * quick.targetS; s > 1.2 {
		t.Errorf("quick samples take %.2f s", s)
	}
	if s := kernels * float64(full.samples) * full.targetS; s > 3.5 {
		t.Errorf("full samples take %.2f s", s)
	}
}

func TestRepsFor(t *testing.T) {
	for _, c := range []struct {
		trialS  float64
		trial   int64
		targetS float64
		want    int64
	}{
		{0.010, 1, 0.054, 6},
		{0.010, 4, 0.054, 22},
		{0.200, 1, 0.054, 1},
		{0.054, 1, 0.054, 1},
		{1e-6, 1 << 14, 0.054, 54000 << 14},
	} {
		got, err := repsFor(c.trialS, c.trial, c.targetS)
		if err != nil || got != c.want {
			t.Errorf("repsFor(%v, %d, %v) = %d, %v; want %d", c.trialS, c.trial, c.targetS, got, err, c.want)
		}
	}
	for _, bad := range [][3]float64{{0, 1, 1}, {math.Inf(1), 1, 1}, {math.NaN(), 1, 1}, {1, 0, 1}, {1, 1, 0}, {1e-300, 1, 1}} {
		if got, err := repsFor(bad[0], int64(bad[1]), bad[2]); err == nil {
			t.Errorf("repsFor(%v) = %d, want an error", bad, got)
		}
	}
}

func TestSplitIterations(t *testing.T) {
	for _, total := range []int64{1, 1000, maxItersPerCall, maxItersPerCall + 1, 7*maxItersPerCall - 3, 1 << 33} {
		calls, per, err := splitIterations(total, maxItersPerCall)
		if err != nil {
			t.Fatal(err)
		}
		if per > maxItersPerCall || calls*per < total || (calls-1)*per >= total || calls != (total+maxItersPerCall-1)/maxItersPerCall {
			t.Errorf("splitIterations(%d) = %d calls of %d", total, calls, per)
		}
	}
	if _, _, err := splitIterations(0, 10); err == nil {
		t.Error("splitting 0 iterations succeeded")
	}
}

func TestSummarize(t *testing.T) {
	s, err := stats.Summarize([]float64{5, 1, 3})
	if err != nil || s.Samples != 3 || s.Median != 3 || s.Min != 1 || s.Max != 5 {
		t.Errorf("odd: %+v, %v", s, err)
	}
	s, err = stats.Summarize([]float64{4, 1, 3, 10})
	if err != nil || s.Samples != 4 || s.Median != 3.5 || s.Min != 1 || s.Max != 10 {
		t.Errorf("even: %+v, %v", s, err)
	}
	for _, bad := range [][]float64{nil, {1, 0}, {1, math.Inf(1)}, {math.NaN()}} {
		if _, err := stats.Summarize(bad); err == nil {
			t.Errorf("stats.Summarize(%v) succeeded", bad)
		}
	}
}

// fakeKernel is a kernel whose repetitions take perRep seconds each, the
// first call slowFirst times as long (a cold start).
type fakeKernel struct {
	perRep, slowFirst float64
	calls             int
	reps              []int64
}

func (f *fakeKernel) run(reps int64) (float64, error) {
	f.calls++
	f.reps = append(f.reps, reps)
	secs := f.perRep * float64(reps)
	if f.calls == 1 {
		secs *= f.slowFirst
	}
	return secs, nil
}

func TestCalibrate(t *testing.T) {
	f := &fakeKernel{perRep: 0.0007, slowFirst: 1}
	reps, err := calibrate(1, 0.054, f.run)
	if err != nil {
		t.Fatal(err)
	}
	if got := f.perRep * float64(reps); got < 0.054 || got > 0.054+f.perRep {
		t.Errorf("calibrated %d reps = %v s, want just over 0.054 s", reps, got)
	}
	if last := f.reps[len(f.reps)-1]; f.perRep*float64(last) < minTrialS || f.perRep*float64(last/2) >= minTrialS {
		t.Errorf("trials %v: the last should be the first to reach %v s", f.reps, minTrialS)
	}
	failing := func(int64) (float64, error) { return 0, errors.New("boom") }
	if _, err := calibrate(1, 0.054, failing); err == nil {
		t.Error("a failing trial did not fail calibration")
	}
}

func TestTakeExtendsShortSamples(t *testing.T) {
	plan := samplePlan{samples: 3, targetS: 0.054}
	f := &fakeKernel{perRep: 0.001, slowFirst: 1}
	run := func(reps int64, _ bool) (float64, error) { return f.run(reps) }
	// Calibrated as if a rep took 2 ms: 27 reps last 27 ms, so the first
	// sample is extended by 27 more, and the next ones run 54 at once.
	rates, err := plan.take(context.Background(), 27, run, func(reps int64) float64 { return float64(reps) })
	if err != nil {
		t.Fatal(err)
	}
	want := []int64{27, 27, 54, 54}
	if len(rates) != 3 || len(f.reps) != len(want) {
		t.Fatalf("rates %v after runs of %v reps, want runs of %v", rates, f.reps, want)
	}
	for i := range want {
		if f.reps[i] != want[i] {
			t.Errorf("runs of %v reps, want %v", f.reps, want)
		}
	}
	for _, r := range rates {
		if math.Abs(r-1000) > 1e-6 {
			t.Errorf("rate %v, want 1000 reps/s", r)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := plan.take(ctx, 60, run, func(int64) float64 { return 1 }); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled take = %v", err)
	}
}

func TestExtension(t *testing.T) {
	for _, c := range []struct {
		secs  float64
		total int64
		want  int64
	}{
		{0.060, 10, 0},
		{minSampleS, 10, 0},
		{0.025, 10, 12},
		{0.0499, 100, 9},
	} {
		got, err := extension(c.secs, c.total, 0.054)
		if err != nil || got != c.want {
			t.Errorf("extension(%v, %d) = %d, %v; want %d", c.secs, c.total, got, err, c.want)
		}
	}
}

func TestRunTeam(t *testing.T) {
	seen := make([]int, 5)
	secs := runTeam(len(seen), func(w int) { seen[w]++ })
	for w, n := range seen {
		if n != 1 {
			t.Errorf("worker %d ran %d times", w, n)
		}
	}
	if !(secs >= 0) {
		t.Errorf("runTeam took %v s", secs)
	}
}

package main

import (
	"bytes"
	"context"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// syncBuffer is a bytes.Buffer safe for mpb's writer goroutine.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestProgressBars: on a terminal a long probe gets a bar with its
// percentage; elsewhere nothing is written at all.
func TestProgressBars(t *testing.T) {
	var quiet syncBuffer
	pr := newProgress(&env{ctx: context.Background(), stderr: &quiet})
	pr.set("0000:00:06.0", "webgpu-memtest")
	pr.step("0000:00:06.0", "webgpu-memtest", 5, 10)
	pr.done()
	if quiet.String() != "" {
		t.Errorf("not a terminal, but wrote %q", quiet.String())
	}

	var tty syncBuffer
	pr = newProgress(&env{ctx: context.Background(), stderr: &tty, isTTY: true})
	pr.set("0000:00:06.0", "webgpu-soak")
	pr.step("0000:00:06.0", "webgpu-soak", 30, 120)
	deadline := time.Now().Add(5 * time.Second)
	for !strings.Contains(tty.String(), "25 %") && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	pr.step("0000:00:06.0", "webgpu-soak", 120, 120)
	pr.done()
	out := tty.String()
	if !strings.Contains(out, "0000:00:06.0: webgpu-soak") || !strings.Contains(out, "25 %") {
		t.Errorf("terminal output lacks the soak bar at 25 %%: %q", out)
	}
}

// TestProgressLines: with APPRAISE_PROGRESS=lines each stage is one line
// as it starts, timed from the run's start by the injected clocks, and a
// long probe's steps add none; the last line says the run is done.
func TestProgressLines(t *testing.T) {
	var out syncBuffer
	at, cpu := time.Unix(100, 0), time.Duration(0)
	pr := newLineProgress(&out, func() time.Time { return at }, func() time.Duration { return cpu })
	advance := func(wall, busy time.Duration) { at, cpu = at.Add(wall), cpu+busy }
	pr.set("software-0", "webgpu-soak")
	advance(3*time.Second, 5*time.Second)
	pr.step("software-0", "webgpu-soak", 2.9, 3)
	advance(500*time.Millisecond, time.Second)
	pr.set("software-0", "consistency")
	pr.step("software-0", "webgpu-soak", 1, 1)
	advance(1250*time.Millisecond, 2*time.Second)
	pr.set("software-0", "vulkan: fma fp16")
	pr.done()
	want := "stage 0.000 0.000 software-0: webgpu-soak\n" +
		"stage 3.500 6.000 software-0: consistency\n" +
		"stage 4.750 8.000 software-0: vulkan: fma fp16\n" +
		"stage 4.750 8.000 done\n"
	if got := out.String(); got != want {
		t.Errorf("lines:\n%s\nwant:\n%s", got, want)
	}
	if got := pr.current(); got != "software-0: vulkan: fma fp16" {
		t.Errorf("current stage %q", got)
	}
	// The variable picks the mode.
	var lines syncBuffer
	pr = newProgress(&env{ctx: context.Background(), stderr: &lines, getenv: func(k string) string {
		if k == "APPRAISE_PROGRESS" {
			return "lines"
		}
		return ""
	}})
	pr.set("0000:00:06.0", "webgpu-alu")
	pr.done()
	if !strings.HasPrefix(lines.String(), "stage ") || !strings.Contains(lines.String(), " 0000:00:06.0: webgpu-alu\n") {
		t.Errorf("APPRAISE_PROGRESS=lines wrote %q", lines.String())
	}
}

// TestProgressBarGoesWithItsProbe replays the events of a soak whose last
// step fell short of its length, then the next stage: the soak's bar
// goes when the appraisal ends the probe (a step of 1 of 1), not at the
// end of the run; a re-measured soak gets a bar of its own; a stage whose
// only step is complete draws none.
func TestProgressBarGoesWithItsProbe(t *testing.T) {
	var tty syncBuffer
	pr := newProgress(&env{ctx: context.Background(), stderr: &tty, isTTY: true})
	defer pr.done()
	const dev = "software-0"
	pr.set(dev, "webgpu-soak")
	for _, at := range []float64{0.5, 1.5, 2.7} {
		pr.step(dev, "webgpu-soak", at, 3)
	}
	if got := pr.bars(); !slices.Equal(got, []string{dev + ": webgpu-soak"}) {
		t.Fatalf("during the soak: bars %q", got)
	}
	pr.step(dev, "webgpu-soak", 1, 1) // the probe ended at 2.7 s of 3
	pr.set(dev, "consistency")
	if got := pr.bars(); len(got) != 0 {
		t.Errorf("after the soak: bars %q, want none", got)
	}
	if got := pr.current(); got != dev+": consistency" {
		t.Errorf("stage shown %q", got)
	}
	pr.set(dev, "consistency: webgpu-soak again")
	pr.step(dev, "webgpu-soak", 1, 3)
	if got := pr.bars(); !slices.Equal(got, []string{dev + ": webgpu-soak"}) {
		t.Errorf("soak re-measured: bars %q", got)
	}
	pr.step(dev, "webgpu-soak", 1, 1)
	pr.step(dev, "webgpu-memtest", 1, 1)
	if got := pr.bars(); len(got) != 0 {
		t.Errorf("bars %q, want none", got)
	}
}

// bars are the keys of the bars on screen, sorted.
func (pr *progress) bars() []string {
	pr.mu.Lock()
	defer pr.mu.Unlock()
	keys := make([]string, 0, len(pr.steps))
	for k := range pr.steps {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

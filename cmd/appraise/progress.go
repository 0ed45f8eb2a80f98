package main

import (
	"fmt"
	"io"
	"sync"
	"syscall"
	"time"

	"github.com/vbauerster/mpb/v8"
	"github.com/vbauerster/mpb/v8/decor"
)

// progress shows the stage an appraisal is in: a spinner and bars on a
// terminal's stderr, nothing elsewhere, or with APPRAISE_PROGRESS=lines one
// line per stage with wall and CPU seconds (bench/quick.sh reads these).
type progress struct {
	mu    sync.Mutex
	stage string
	p     *mpb.Progress
	bar   *mpb.Bar
	steps map[string]*mpb.Bar // long probes' bars, by device and stage
	lines *stageLines
}

// progressLines is the value of APPRAISE_PROGRESS that asks for lines.
const progressLines = "lines"

// stageLines writes a line per stage: "stage <wall s> <cpu s> <device>: <stage>".
type stageLines struct {
	w        io.Writer
	now      func() time.Time
	cpu      func() time.Duration
	start    time.Time
	cpuStart time.Duration
}

func (l *stageLines) write(stage string) {
	fmt.Fprintf(l.w, "stage %.3f %.3f %s\n", l.now().Sub(l.start).Seconds(), (l.cpu() - l.cpuStart).Seconds(), stage)
}

// processCPU is the user and system CPU time this process has used.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// stepScale is a bar's total: done/total is drawn in steps of 0.1 %.
const stepScale = 1000

func newProgress(e *env) *progress {
	if e.getenv != nil && e.getenv("APPRAISE_PROGRESS") == progressLines {
		return newLineProgress(e.stderr, time.Now, processCPU)
	}
	if !e.isTTY {
		return &progress{}
	}
	pr := &progress{p: mpb.NewWithContext(e.ctx, mpb.WithOutput(e.stderr), mpb.WithWidth(32), mpb.WithAutoRefresh()), steps: map[string]*mpb.Bar{}}
	pr.bar = pr.p.New(0, mpb.SpinnerStyle(),
		mpb.PrependDecorators(decor.Name("appraise "), decor.Elapsed(decor.ET_STYLE_MMSS, decor.WC{W: 6})),
		mpb.AppendDecorators(decor.Any(func(decor.Statistics) string { return pr.current() })),
		mpb.BarFillerClearOnComplete(),
	)
	return pr
}

// newLineProgress writes a line per stage to w, timed by now and cpu.
func newLineProgress(w io.Writer, now func() time.Time, cpu func() time.Duration) *progress {
	return &progress{lines: &stageLines{w: w, now: now, cpu: cpu, start: now(), cpuStart: cpu()}}
}

// set records the stage a device is in; it is the appraisal's Progress.
func (pr *progress) set(device, stage string) {
	pr.mu.Lock()
	defer pr.mu.Unlock()
	pr.stage = device + ": " + stage
	if pr.lines != nil {
		pr.lines.write(pr.stage)
	}
}

// step is the appraisal's Steps: a bar shows while done < total for a
// stage; a stage run again gets a new bar.
func (pr *progress) step(device, stage string, done, total float64) {
	if pr.p == nil || total <= 0 {
		return
	}
	key := device + ": " + stage
	pr.mu.Lock()
	b, ok := pr.steps[key]
	if done >= total {
		delete(pr.steps, key)
	}
	pr.mu.Unlock()
	// mpb is called without pr.mu: the spinner's decorator takes it.
	switch {
	case done >= total:
		if ok {
			b.SetCurrent(stepScale)
		}
		return
	case !ok:
		b = pr.p.AddBar(stepScale,
			mpb.PrependDecorators(decor.Name(key+" ", decor.WC{C: decor.DindentRight})),
			mpb.AppendDecorators(decor.Percentage(decor.WC{W: 5}), decor.Name(" "), decor.AverageETA(decor.ET_STYLE_MMSS)),
			mpb.BarRemoveOnComplete(),
		)
		pr.mu.Lock()
		prev, dup := pr.steps[key]
		if !dup {
			pr.steps[key] = b
		}
		pr.mu.Unlock()
		if dup { // another step of the stage made its bar first
			b.Abort(true)
			b = prev
		}
	}
	b.SetCurrent(int64(done / total * stepScale))
}

func (pr *progress) current() string {
	pr.mu.Lock()
	defer pr.mu.Unlock()
	return pr.stage
}

// done removes the spinner and waits for its last frame.
func (pr *progress) done() {
	if pr.lines != nil {
		pr.mu.Lock()
		pr.lines.write("done")
		pr.mu.Unlock()
	}
	if pr.p == nil {
		return
	}
	pr.mu.Lock()
	open := pr.steps
	pr.steps = map[string]*mpb.Bar{}
	pr.mu.Unlock()
	for _, b := range open {
		b.Abort(true)
	}
	pr.bar.SetTotal(-1, true)
	pr.p.Wait()
}

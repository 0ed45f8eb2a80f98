package main

import (
	"sync"

	"github.com/vbauerster/mpb/v8"
	"github.com/vbauerster/mpb/v8/decor"
)

// progress shows the stage an appraisal is in. On a terminal it draws an
// mpb spinner on stderr, and a bar with percentage and time left for each
// long probe (memtest, soak) while it runs; elsewhere it shows nothing, so
// logs and --json output stay clean.
type progress struct {
	mu    sync.Mutex
	stage string
	p     *mpb.Progress
	bar   *mpb.Bar
	steps map[string]*mpb.Bar // long probes' bars, by device and stage
}

// stepScale is a bar's total: done/total is drawn in steps of 0.1 %.
const stepScale = 1000

func newProgress(e *env) *progress {
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

// set records the stage a device is in; it is the appraisal's Progress.
func (pr *progress) set(device, stage string) {
	pr.mu.Lock()
	pr.stage = device + ": " + stage
	pr.mu.Unlock()
}

// step draws how far a long probe has come; it is the appraisal's Steps.
// A bar appears at a stage's first step and goes when done reaches total.
func (pr *progress) step(device, stage string, done, total float64) {
	if pr.p == nil || total <= 0 {
		return
	}
	key := device + ": " + stage
	pr.mu.Lock()
	b, ok := pr.steps[key]
	if !ok {
		b = pr.p.AddBar(stepScale,
			mpb.PrependDecorators(decor.Name(key+" ", decor.WC{C: decor.DindentRight})),
			mpb.AppendDecorators(decor.Percentage(decor.WC{W: 5}), decor.Name(" "), decor.AverageETA(decor.ET_STYLE_MMSS)),
			mpb.BarRemoveOnComplete(),
		)
		pr.steps[key] = b
	}
	pr.mu.Unlock()
	b.SetCurrent(int64(min(done/total, 1) * stepScale))
}

func (pr *progress) current() string {
	pr.mu.Lock()
	defer pr.mu.Unlock()
	return pr.stage
}

// done removes the spinner and waits for its last frame.
func (pr *progress) done() {
	if pr.p == nil {
		return
	}
	pr.mu.Lock()
	for _, b := range pr.steps {
		if !b.Completed() {
			b.Abort(true)
		}
	}
	pr.mu.Unlock()
	pr.bar.SetTotal(-1, true)
	pr.p.Wait()
}

package main

import (
	"sync"

	"github.com/vbauerster/mpb/v8"
	"github.com/vbauerster/mpb/v8/decor"
)

// progress shows the stage an appraisal is in. On a terminal it draws an
// mpb spinner on stderr; elsewhere it shows nothing, so logs and --json
// output stay clean.
type progress struct {
	mu    sync.Mutex
	stage string
	p     *mpb.Progress
	bar   *mpb.Bar
}

func newProgress(e *env) *progress {
	if !e.isTTY {
		return &progress{}
	}
	pr := &progress{p: mpb.NewWithContext(e.ctx, mpb.WithOutput(e.stderr), mpb.WithWidth(16))}
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
	pr.bar.SetTotal(-1, true)
	pr.p.Wait()
}

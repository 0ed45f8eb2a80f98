package coopmat

import (
	"fmt"
	"time"
)

// Budgets of the tile search, on the host's clock: the longest one trial
// (build the kernel, time it, check it) may be predicted to take, and the
// time the trials of one shape may take together. Building is what grows
// with the tile: a driver that lowers every MulAdd into vector code, as
// lavapipe does, compiles for a time that grows at least in proportion to
// the MulAdds of the loop body, and takes minutes over the tiles a GPU's
// search prefers, while a GPU's whole search of a shape takes seconds, so
// neither budget cuts that short (figures in docs/performance.md).
const (
	trialBudget = 20 * time.Second
	shapeBudget = 60 * time.Second
)

// trialGuard keeps the tile search of one shape within its budgets: the
// candidates come smallest first, each trial's duration is measured, and a
// trial's duration is predicted from the last one's in proportion to the
// MulAdds of their loop bodies. A trial predicted to outlast trialBudget,
// or to take the shape's trials past shapeBudget, is not started. The
// prediction decides only which candidates are tried; every figure still
// comes from a trial that ran and passed its check.
type trialGuard struct {
	now          func() time.Time
	trial, shape time.Duration // the budgets
	start        time.Time
	spent        time.Duration // by the trials so far
	lastCode     uint32        // MulAdds of the last trial (0: none yet)
	lastTook     time.Duration // and how long it took
}

func newTrialGuard(now func() time.Time) *trialGuard {
	return &trialGuard{now: now, trial: trialBudget, shape: shapeBudget}
}

// refuse says why a trial of code MulAdds should not start ("" when it
// may, and then starts its clock). The first trial always may.
func (g *trialGuard) refuse(code uint32) string {
	if g.lastCode > 0 {
		predicted := time.Duration(float64(g.lastTook) * float64(code) / float64(g.lastCode))
		basis := fmt.Sprintf("%d MulAdds a step against %d in a trial of %v: predicted %v",
			code, g.lastCode, g.lastTook.Round(time.Millisecond), predicted.Round(100*time.Millisecond))
		switch {
		case predicted > g.trial:
			return fmt.Sprintf("%s, over the %v a trial may take", basis, g.trial)
		case g.spent+predicted > g.shape:
			return fmt.Sprintf("%s, and the shape's trials took %v of their %v", basis, g.spent.Round(100*time.Millisecond), g.shape)
		}
	}
	g.start = g.now()
	return ""
}

// done records the end of the trial refuse last let start, of code MulAdds.
func (g *trialGuard) done(code uint32) {
	took := g.now().Sub(g.start)
	g.lastCode, g.lastTook = code, took
	g.spent += took
}

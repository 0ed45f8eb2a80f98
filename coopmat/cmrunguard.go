package coopmat

import (
	"fmt"
	"time"
)

// Budgets of the tile search on the host's clock: one trial (build, time,
// check) as predicted, and one shape's trials together.
const (
	trialBudget = 20 * time.Second
	shapeBudget = 60 * time.Second
)

// trialGuard keeps one shape's search within its budgets: a trial's time is
// predicted from the last one's in proportion to their MulAdds, and one
// predicted past a budget is not started. It decides only what is tried.
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

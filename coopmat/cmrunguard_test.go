package coopmat

import (
	"strings"
	"testing"
	"time"
)

// fakeClock advances only when told.
type fakeClock struct{ t time.Time }

func (c *fakeClock) now() time.Time          { return c.t }
func (c *fakeClock) advance(d time.Duration) { c.t = c.t.Add(d) }

// TestTrialGuard: the first trial always starts; a larger one starts while
// its duration, predicted in proportion to MulAdds from the last trial's,
// stays within trialBudget and the shape's trials within shapeBudget.
func TestTrialGuard(t *testing.T) {
	c := &fakeClock{}
	g := newTrialGuard(c.now)
	run := func(code uint32, took time.Duration) string {
		if why := g.refuse(code); why != "" {
			return why
		}
		c.advance(took)
		g.done(code)
		return ""
	}
	if why := run(64, 30*time.Second); why != "" { // over the budget, but the first
		t.Fatalf("first trial refused: %s", why)
	}
	if why := run(128, time.Second); !strings.Contains(why, "predicted 1m0s, over the 20s a trial may take") {
		t.Errorf("a trial predicted at 60 s: %q", why)
	}
	if why := run(32, 2*time.Second); why != "" { // predicted 15 s
		t.Errorf("a smaller trial refused: %s", why)
	}
	if why := run(64, 15*time.Second); why != "" { // predicted 4 s; 47 s spent after it
		t.Errorf("a trial within both budgets refused: %s", why)
	}
	if why := run(64, 0); !strings.Contains(why, "predicted 15s, and the shape's trials took 47s of their 1m0s") {
		t.Errorf("a trial past the shape's budget: %q", why)
	}
}

package thermal

import (
	"math"
	"testing"
	"time"
)

func TestTimelineCondenses(t *testing.T) {
	ps := series(60*time.Second, func(t time.Duration) float64 { return float64(t / time.Second) })
	rs := []Reading{{At: 250 * time.Millisecond, TemperatureC: 40, PowerW: 100}, {At: 59 * time.Second, TemperatureC: 70, PowerW: math.NaN()}}
	steps := Timeline(60*time.Second, ps, rs)
	if len(steps) != MaxSteps {
		t.Fatalf("%d steps, want %d", len(steps), MaxSteps)
	}
	first, last, hot := steps[0], steps[len(steps)-1], steps[len(steps)-3]
	if first.At != 500*time.Millisecond || first.TemperatureC != 40 || first.PowerW != 100 {
		t.Fatalf("first step %+v", first)
	}
	if last.At != 60*time.Second || !math.IsNaN(last.TemperatureC) || last.OpsPerS < 59 {
		t.Fatalf("last step %+v", last)
	}
	// The reading at 59 s falls in the step (58.5 s, 59 s].
	if hot.At != 59*time.Second || hot.TemperatureC != 70 || !math.IsNaN(hot.PowerW) {
		t.Fatalf("step at 59 s %+v", hot)
	}
	for i := 1; i < len(steps); i++ {
		if steps[i].At <= steps[i-1].At {
			t.Fatal("steps out of order")
		}
	}
}

func TestTimelineShortSoak(t *testing.T) {
	ps := []Point{{At: time.Second, OpsPerS: 1}, {At: 2 * time.Second, OpsPerS: 2}}
	steps := Timeline(2*time.Second, ps, nil)
	if len(steps) != 2 || steps[1].OpsPerS != 2 || !math.IsNaN(steps[0].TemperatureC) {
		t.Fatalf("%+v", steps)
	}
	if Timeline(0, ps, nil) != nil {
		t.Fatal("timeline of an empty soak")
	}
}

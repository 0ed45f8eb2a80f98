package thermal

import (
	"math"
	"time"

	"github.com/everycycle/appraise/internal/measure/stats"
)

// MaxSteps is the most steps a timeline has.
const MaxSteps = 120

// Step is one step of a condensed soak: the medians of the points and
// readings whose time falls in (previous step's At, At].
type Step struct {
	At                   time.Duration
	OpsPerS              float64
	TemperatureC, PowerW float64 // NaN when no reading fell in the step
}

// Timeline condenses a soak into at most MaxSteps steps of equal length,
// for plotting. Steps with no point of the load are left out.
func Timeline(soak time.Duration, points []Point, readings []Reading) []Step {
	if soak <= 0 || len(points) == 0 {
		return nil
	}
	n := MaxSteps
	if len(points) < n {
		n = len(points)
	}
	width := soak / time.Duration(n)
	if width <= 0 {
		width = 1
	}
	index := func(at time.Duration) int {
		i := int((at - 1) / width)
		return min(max(i, 0), n-1)
	}
	ops := make([][]float64, n)
	temp := make([][]float64, n)
	power := make([][]float64, n)
	for _, p := range points {
		i := index(p.At)
		ops[i] = append(ops[i], p.OpsPerS)
	}
	for _, r := range readings {
		i := index(r.At)
		if !math.IsNaN(r.TemperatureC) {
			temp[i] = append(temp[i], r.TemperatureC)
		}
		if !math.IsNaN(r.PowerW) {
			power[i] = append(power[i], r.PowerW)
		}
	}
	var out []Step
	for i := range n {
		if len(ops[i]) == 0 {
			continue
		}
		out = append(out, Step{At: time.Duration(i+1) * width, OpsPerS: stats.Median(ops[i]), TemperatureC: medianOrNaN(temp[i]), PowerW: medianOrNaN(power[i])})
	}
	return out
}

func medianOrNaN(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	return stats.Median(xs)
}

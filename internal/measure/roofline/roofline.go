// Package roofline holds a sweep of throughput against arithmetic intensity to
// the roofline drawn from the sweep itself, min(peak, bandwidth × intensity); a
// roof lowered uniformly over the whole sweep does not show. Start with Analyse.
package roofline

import (
	"errors"
	"fmt"
	"math"

	"github.com/everycycle/appraise/internal/measure/stats"
)

// Point is one intensity of a sweep.
type Point struct {
	Intensity float64 // operations per byte of device memory moved
	OpsPerS   float64 // operations/s achieved there
}

// Analysis is a sweep held against its own roofline.
type Analysis struct {
	Peak           float64   // the highest OpsPerS of any point, ops/s
	Bandwidth      float64   // the highest OpsPerS/Intensity of any point, bytes/s
	RidgeIntensity float64   // Peak/Bandwidth, ops/byte: where the roofs meet
	Model          []float64 // min(Peak, Bandwidth × Intensity) per point, ops/s
	Ratios         []float64 // OpsPerS/Model per point, in (0, 1]
	Ratio          float64   // the median of Ratios
	Ridge          int       // the point nearest RidgeIntensity in log intensity, the lower on a tie
	RidgeRatio     float64   // Ratios[Ridge]
}

// MinPoints is the fewest points Analyse accepts, as schema.RooflineRatio requires.
const MinPoints = 3

// ErrBadSweep is wrapped by every error Analyse returns.
var ErrBadSweep = errors.New("roofline: unusable sweep")

// Analyse computes the roofline of a sweep and each point's ratio to it. It
// needs MinPoints points, each of positive finite intensity and throughput.
func Analyse(points []Point) (Analysis, error) {
	if err := validate(points); err != nil {
		return Analysis{}, err
	}
	var a Analysis
	for _, p := range points {
		a.Peak = max(a.Peak, p.OpsPerS)
		a.Bandwidth = max(a.Bandwidth, p.OpsPerS/p.Intensity)
	}
	a.RidgeIntensity = a.Peak / a.Bandwidth
	a.Model = make([]float64, len(points))
	a.Ratios = make([]float64, len(points))
	for i, p := range points {
		a.Model[i] = min(a.Peak, a.Bandwidth*p.Intensity)
		a.Ratios[i] = min(1, p.OpsPerS/a.Model[i]) // 1 where rounding puts it a hair above
	}
	a.Ratio = stats.Median(a.Ratios)
	a.Ridge = nearest(points, a.RidgeIntensity)
	a.RidgeRatio = a.Ratios[a.Ridge]
	return a, nil
}

func validate(points []Point) error {
	if len(points) < MinPoints {
		return fmt.Errorf("%w: %d points, need at least %d", ErrBadSweep, len(points), MinPoints)
	}
	for i, p := range points {
		if !positiveFinite(p.Intensity) || !positiveFinite(p.OpsPerS) {
			return fmt.Errorf("%w: point %d has intensity %v ops/byte and throughput %v ops/s; both must be positive and finite",
				ErrBadSweep, i, p.Intensity, p.OpsPerS)
		}
	}
	return nil
}

func positiveFinite(x float64) bool { return x > 0 && !math.IsInf(x, 0) }

func nearest(points []Point, ridge float64) int {
	best, bestD := 0, math.Inf(1)
	for i, p := range points {
		d := math.Abs(math.Log(p.Intensity / ridge))
		if d < bestD || (d == bestD && p.Intensity < points[best].Intensity) {
			best, bestD = i, d
		}
	}
	return best
}

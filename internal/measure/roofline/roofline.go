// Package roofline is the model behind the roofline ratio of a capability
// vector (schema.RooflineRatio): given what one sweep achieved at several
// arithmetic intensities, how close does each point sit to the roofline
// drawn from that same sweep? Start with Analyse.
//
// # The model
//
// A sweep is a list of points (I, A): arithmetic intensity I in operations
// per byte of device memory moved, and the throughput A achieved there in
// operations/s. Both roofs come from the sweep itself, never from a table:
//
//	Peak       P = max over points of A                  (operations/s)
//	Bandwidth  B = max over points of A / I              (bytes/s)
//	Model      M(I) = min(P, B × I)                      (operations/s)
//	ratio      r = A / M(I) at each point                (unitless, in (0, 1])
//	Ratio      the median of r over the points
//	Ridge      the point whose log I is nearest log(P / B), the ridge
//	           intensity where the two roofs meet (on a tie, the lower I)
//	RidgeRatio r at the ridge point
//
// Every r is at most 1 (A ≤ P and A ≤ B × I by construction), and the
// points that set P and B have r = 1. A real device rounds the corner:
// where memory and compute both bind, neither hides the other completely,
// so the points near the ridge of a healthy device sit below 1. How far
// depends on the device: mixbench's fp32 sweep of an H200, kept as test
// data (TestRealHealthySweep: 11 intensities doubling from 0.75 to 512
// ops/byte), reads Ratio 0.96 and RidgeRatio 0.76; a device that overlaps
// almost nothing, such as Mesa's software device lavapipe, reads a lower
// Ratio that moves from run to run and a RidgeRatio near half (the
// figures the gpu package's roofline tests have measured there are in
// docs/performance.md).
//
// # What the ratio detects
//
// The ratio measures the shape of the curve, not its height: it falls
// where throughput depends on intensity in a way that two roofs, taken
// from the same sweep, cannot explain.
//
//   - Compute that falls short in part of the sweep: throttling, a noisy
//     neighbour or extra hidden work at some intensities, while other
//     intensities still reach the roofs. The points hit fall below the
//     roofs the others set.
//   - Work the sweep does not count, done per element moved (hidden
//     instructions, replays, a memory path that stalls the arithmetic):
//     A = P × ops/(ops + c) once compute binds, so the points with ops
//     near c sag towards half of the model while the lowest and highest
//     intensities still reach their roofs (TestDegradedDeviceFallsOffItsRoofline).
//   - Memory and compute that take turns instead of overlapping: A =
//     1/(1/P + 1/(B × I)), r = 0.5 at the ridge (TestSerialMemoryAndCompute).
//
// Ratio, a median, moves only when more than half the points fall: with
// 11 points over three decades, the points far below or far above the
// ridge sit on a roof by construction and hold the median near 1. A sag
// around the ridge (per-element overhead, a serial device) shows in
// RidgeRatio and moves Ratio by a few hundredths (0.955 for the overhead
// case above, next to the real H200's healthy 0.957). Ratio falls far
// only when the shortfall spans most of the sweep while a few points still
// reach both roofs (TestThrottledInPartOfTheSweep, and the gpu package's
// TestRooflineHiddenWorkRecorded: on sweeps recorded on lavapipe, a kernel
// with hidden work at eight of eleven intensities reads a Ratio at least
// 0.3 below the plain kernel's).
//
// # What it cannot detect
//
// Anything that scales a roof for the whole sweep. A device whose compute
// is uniformly slow (clocks capped, units disabled) reads Ratio ≈ 1 with a
// lower Peak and a lower ridge intensity P/B; one whose memory is
// uniformly slow reads Ratio ≈ 1 with a lower Bandwidth
// (TestUniformlySlowComputeIsNotDetected). The ratio then says only that
// the device is consistent with itself. Telling "slower card" from
// "degraded card" when a roof is uniformly low needs the roofs' absolute
// values (Peak, Bandwidth, RidgeIntensity, which Analysis reports) held
// against something outside the sweep: another card of the claimed model,
// a datasheet, a buyer's threshold. Likewise, on a device whose memory and
// compute already take turns, a fixed per-element overhead c makes A = I /
// ((1/B + c/P) + I/P): exactly a healthy serial device with lower
// bandwidth, and the ratio cannot tell them apart.
//
// Nor can it see a roof that is high by chance: one lucky point raises P
// or B and lowers every other point's ratio, which is why each point
// should be the median of several samples. One slow point moves the
// median little unless it is the ridge point.
package roofline

import (
	"errors"
	"fmt"
	"math"

	"github.com/everycycle/appraise/internal/measure/stats"
)

// Point is one intensity of a sweep.
type Point struct {
	// Intensity is operations per byte of device memory moved.
	Intensity float64
	// OpsPerS is the throughput achieved there, in operations/s.
	OpsPerS float64
}

// Analysis is a sweep held against its own roofline (see the package doc).
type Analysis struct {
	// Peak is the highest throughput of any point, in operations/s.
	Peak float64
	// Bandwidth is the highest OpsPerS/Intensity of any point, in bytes/s.
	Bandwidth float64
	// RidgeIntensity is Peak/Bandwidth, in operations per byte: where the
	// model's two roofs meet.
	RidgeIntensity float64
	// Model is min(Peak, Bandwidth × Intensity) at each point, in the
	// points' order, in operations/s.
	Model []float64
	// Ratios is OpsPerS/Model at each point, in the points' order.
	Ratios []float64
	// Ratio is the median of Ratios.
	Ratio float64
	// Ridge is the index of the point nearest RidgeIntensity in log
	// intensity (the lower intensity on a tie).
	Ridge int
	// RidgeRatio is Ratios[Ridge].
	RidgeRatio float64
}

// MinPoints is the fewest points Analyse accepts (schema.RooflineRatio
// requires as many).
const MinPoints = 3

// ErrBadSweep is wrapped by every error Analyse returns.
var ErrBadSweep = errors.New("roofline: unusable sweep")

// Analyse computes the roofline model of a sweep and each point's ratio
// to it. It needs at least MinPoints points, each with a positive finite
// intensity and throughput.
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

// validate rejects sweeps Analyse cannot model.
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

// positiveFinite reports whether x is a positive finite number.
func positiveFinite(x float64) bool { return x > 0 && !math.IsInf(x, 0) }

// nearest is the index of the point whose log intensity is nearest
// log(ridge), the lower intensity on a tie.
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

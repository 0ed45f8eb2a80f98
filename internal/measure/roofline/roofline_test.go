package roofline

import (
	"errors"
	"math"
	"testing"
)

// device is a synthetic device: compute roof peak (operations/s), memory
// roof bw (bytes/s), hidden operations per byte the sweep does not count,
// and how sharply its corner turns (the p of a p-norm of the two times:
// 1 for memory and compute taking turns, large for a perfect overlap).
type device struct {
	peak, bw, hidden, sharp float64
}

// intensities are the sweep's 11 intensities, 0.25 to 256 ops/byte,
// doubling, as the gpu package's roofline probe sweeps them.
func intensities() []float64 {
	is := make([]float64, 11)
	for j := range is {
		is[j] = 0.25 * math.Exp2(float64(j))
	}
	return is
}

// at is the throughput d achieves at intensity i: i operations per byte
// over the time one byte takes, the p-norm of its memory time and its
// compute time (counted and hidden operations).
func (d device) at(i float64) float64 {
	tm, tc := 1/d.bw, (i+d.hidden)/d.peak
	t := math.Pow(math.Pow(tm, d.sharp)+math.Pow(tc, d.sharp), 1/d.sharp)
	return i / t
}

// sweep is d measured at every intensity.
func (d device) sweep() []Point {
	var ps []Point
	for _, i := range intensities() {
		ps = append(ps, Point{Intensity: i, OpsPerS: d.at(i)})
	}
	return ps
}

// H200-like roofs: fp32 FMA peak and HBM bandwidth, ridge near 16 ops/byte.
const (
	h200Peak = 66.9e12
	h200BW   = 4.2e12
	corner   = 4 // a healthy device's corner: r = 2^-1/4 = 0.84 where the roofs meet
)

func analyse(t *testing.T, name string, ps []Point) Analysis {
	t.Helper()
	a, err := Analyse(ps)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	t.Logf("%-22s Ratio %.3f RidgeRatio %.3f (at %g ops/byte) peak %.3g ops/s bandwidth %.3g B/s ridge %.3g ops/byte; ratios %.2f",
		name, a.Ratio, a.RidgeRatio, ps[a.Ridge].Intensity, a.Peak, a.Bandwidth, a.RidgeIntensity, a.Ratios)
	return a
}

// TestHealthyDevicesSitOnTheirRoofline: a fast device and slower ones
// (both roofs scaled down together, or by different factors) all read
// Ratio near 1; scaling both roofs by one factor leaves every ratio
// unchanged.
func TestHealthyDevicesSitOnTheirRoofline(t *testing.T) {
	fast := device{peak: h200Peak, bw: h200BW, sharp: corner}
	slow := device{peak: h200Peak / 3, bw: h200BW / 3, sharp: corner}
	lopsided := device{peak: h200Peak / 5, bw: h200BW / 2, sharp: corner}
	af := analyse(t, "healthy fast", fast.sweep())
	as := analyse(t, "healthy slow (÷3, ÷3)", slow.sweep())
	al := analyse(t, "healthy slow (÷5, ÷2)", lopsided.sweep())
	for _, a := range []Analysis{af, as, al} {
		if a.Ratio < 0.97 || a.RidgeRatio < 0.8 {
			t.Errorf("healthy device: Ratio %.3f, RidgeRatio %.3f; want >= 0.97 and >= 0.8", a.Ratio, a.RidgeRatio)
		}
	}
	for i := range af.Ratios {
		if math.Abs(af.Ratios[i]-as.Ratios[i]) > 1e-12 {
			t.Errorf("point %d: ratio %v on the fast device, %v on the proportionally slower one", i, af.Ratios[i], as.Ratios[i])
		}
	}
	if r := af.Peak / as.Peak; math.Abs(r-3) > 1e-9 {
		t.Errorf("peak ratio fast/slow %v, want 3", r)
	}
}

// TestDegradedDeviceFallsOffItsRoofline: normal bandwidth, normal peak at
// the highest intensity, but uncounted work per byte moved (as a kernel
// variant doing extra hidden work per element would have): the points
// around the ridge fall far below the roofline the rest of the sweep
// draws. RidgeRatio shows it; the median, which the points far from the
// ridge hold near 1, moves only a little (0.955 here, about what the real
// H200 sweep of TestRealHealthySweep reads).
func TestDegradedDeviceFallsOffItsRoofline(t *testing.T) {
	healthy := analyse(t, "healthy", device{peak: h200Peak, bw: h200BW, sharp: corner}.sweep())
	// Hidden work worth 80 % of the memory time per byte: the lowest
	// intensities stay memory-bound, so the measured bandwidth is normal.
	hidden := 0.8 * h200Peak / h200BW
	deg := analyse(t, "hidden work per byte", device{peak: h200Peak, bw: h200BW, hidden: hidden, sharp: corner}.sweep())
	if rel := deg.Bandwidth / healthy.Bandwidth; rel < 0.9 {
		t.Errorf("degraded device's bandwidth %.3g is %.2f of the healthy one's; the test wants it normal", deg.Bandwidth, rel)
	}
	if deg.RidgeRatio > 0.65 || deg.RidgeRatio > healthy.RidgeRatio-0.2 {
		t.Errorf("RidgeRatio %.3f with hidden work, %.3f healthy; want <= 0.65 and 0.2 below", deg.RidgeRatio, healthy.RidgeRatio)
	}
	if deg.Ratio > healthy.Ratio-0.03 {
		t.Errorf("Ratio %.3f with hidden work, %.3f healthy; want 0.03 below", deg.Ratio, healthy.Ratio)
	}
	// Twice as much hidden work: the sag widens and the median follows a
	// little further (the bandwidth now looks low as well).
	deg2 := analyse(t, "2x hidden work", device{peak: h200Peak, bw: h200BW, hidden: 2 * hidden, sharp: corner}.sweep())
	if deg2.Ratio > 0.93 || deg2.RidgeRatio > 0.65 {
		t.Errorf("2x hidden work: Ratio %.3f RidgeRatio %.3f; want <= 0.93 and <= 0.65", deg2.Ratio, deg2.RidgeRatio)
	}
}

// throttle replaces the points of ps from index lo to hi with what d
// achieves with its compute roof divided by f.
func throttle(ps []Point, d device, f float64, lo, hi int) []Point {
	slow := d
	slow.peak /= f
	for j := lo; j <= hi; j++ {
		ps[j].OpsPerS = slow.at(ps[j].Intensity)
	}
	return ps
}

// TestThrottledInPartOfTheSweep: compute at half its peak for part of the
// sweep, full at the highest intensity. The throttled points fall below
// the roofs the others set. When they are fewer than half the points,
// only RidgeRatio sees it; when more than half the sweep is
// compute-bound (a low ridge) and throttled, the median falls too.
func TestThrottledInPartOfTheSweep(t *testing.T) {
	d := device{peak: h200Peak, bw: h200BW, sharp: corner}
	band := analyse(t, "throttled 8-64 ops/B", throttle(d.sweep(), d, 2, 5, 8))
	if band.RidgeRatio > 0.6 {
		t.Errorf("RidgeRatio %.3f; want <= 0.6", band.RidgeRatio)
	}
	if band.Ratio < 0.97 {
		t.Errorf("Ratio %.3f with 4 of 11 points throttled; the package doc says the median does not see it (want >= 0.97)", band.Ratio)
	}
	low := device{peak: h200BW * 2, bw: h200BW, sharp: corner} // ridge at 2 ops/byte
	wide := analyse(t, "ridge 2, throttled 1-128", throttle(low.sweep(), low, 2, 2, 9))
	if wide.Ratio > 0.7 || wide.RidgeRatio > 0.7 {
		t.Errorf("Ratio %.3f RidgeRatio %.3f; want <= 0.7 and <= 0.7", wide.Ratio, wide.RidgeRatio)
	}
}

// TestUniformlySlowComputeIsNotDetected pins the limit the package doc
// states: compute that is low for the whole sweep (here a quarter, with
// normal bandwidth) reads as a healthy device with a lower ridge; only
// Peak and RidgeIntensity show it.
func TestUniformlySlowComputeIsNotDetected(t *testing.T) {
	healthy := analyse(t, "healthy", device{peak: h200Peak, bw: h200BW, sharp: corner}.sweep())
	capped := analyse(t, "compute ÷4 everywhere", device{peak: h200Peak / 4, bw: h200BW, sharp: corner}.sweep())
	if capped.Ratio < 0.97 {
		t.Errorf("uniformly slow compute: Ratio %.3f; the model says it cannot tell (want >= 0.97)", capped.Ratio)
	}
	if r := healthy.RidgeIntensity / capped.RidgeIntensity; r < 3.5 || r > 4.5 {
		t.Errorf("ridge intensity %.3g healthy, %.3g capped: ratio %.2f, want about 4", healthy.RidgeIntensity, capped.RidgeIntensity, r)
	}
}

// TestSerialMemoryAndCompute: a device whose memory and compute take
// turns (times add) sits at half the model at the ridge.
func TestSerialMemoryAndCompute(t *testing.T) {
	a := analyse(t, "serial", device{peak: h200Peak, bw: h200BW, sharp: 1}.sweep())
	if a.RidgeRatio > 0.6 {
		t.Errorf("RidgeRatio %.3f; want <= 0.6", a.RidgeRatio)
	}
}

// mixbenchH200 is mixbench-cuda's single-precision sweep on the project's
// H200 (../shared/samples/mixbench-cuda-h200.txt), the rows of 1, 2, 4, …,
// 1024 compute iterations: Flops/byte and GFLOPS as it printed them.
var mixbenchH200 = [][2]float64{
	{0.750, 2245.34}, {1.250, 3710.46}, {2.250, 6553.60}, {4.250, 11612.89},
	{8.250, 24096.80}, {16.250, 36961.74}, {32.250, 43396.31}, {64.250, 49637.88},
	{128.250, 53012.66}, {256.250, 57364.99}, {512.250, 59964.62},
}

// TestRealHealthySweep: a real, healthy device's sweep (mixbench on the
// H200) reads a high Ratio and a ridge ratio well above half, the figures
// the package doc quotes.
func TestRealHealthySweep(t *testing.T) {
	var ps []Point
	for _, r := range mixbenchH200 {
		ps = append(ps, Point{Intensity: r[0], OpsPerS: r[1] * 1e9})
	}
	a := analyse(t, "mixbench H200 fp32", ps)
	if math.Abs(a.Ratio-0.957) > 0.0005 || math.Abs(a.RidgeRatio-0.760) > 0.0005 || ps[a.Ridge].Intensity != 16.25 {
		t.Errorf("Ratio %.4f RidgeRatio %.4f at %g; the package doc says 0.96 and 0.76 at 16.25", a.Ratio, a.RidgeRatio, ps[a.Ridge].Intensity)
	}
}

// TestAnalyseDefinitions checks every field on a hand-computed sweep.
func TestAnalyseDefinitions(t *testing.T) {
	ps := []Point{{1, 10}, {4, 30}, {16, 50}, {64, 60}}
	a, err := Analyse(ps)
	if err != nil {
		t.Fatal(err)
	}
	// Peak 60; bandwidth max(10, 7.5, 3.125, 0.9375) = 10; ridge 6.
	want := Analysis{Peak: 60, Bandwidth: 10, RidgeIntensity: 6,
		Model:  []float64{10, 40, 60, 60},
		Ratios: []float64{1, 0.75, 50.0 / 60, 1},
		Ridge:  1, RidgeRatio: 0.75, // log(6/4) < log(16/6)
	}
	want.Ratio = (50.0/60 + 1) / 2 // median of 0.75, 0.833, 1, 1
	if a.Peak != want.Peak || a.Bandwidth != want.Bandwidth || a.RidgeIntensity != want.RidgeIntensity ||
		a.Ridge != want.Ridge || a.RidgeRatio != want.RidgeRatio || math.Abs(a.Ratio-want.Ratio) > 1e-15 {
		t.Errorf("got %+v\nwant %+v", a, want)
	}
	for i := range ps {
		if a.Model[i] != want.Model[i] || math.Abs(a.Ratios[i]-want.Ratios[i]) > 1e-15 {
			t.Errorf("point %d: model %v ratio %v, want %v %v", i, a.Model[i], a.Ratios[i], want.Model[i], want.Ratios[i])
		}
	}
}

// TestRidgeTieTakesLowerIntensity: two points equally far from the ridge
// in log intensity; the lower one is the ridge point, in either order.
func TestRidgeTieTakesLowerIntensity(t *testing.T) {
	// Peak 8 at I=8; bandwidth 2 at I=1; ridge 4: I=2 and I=8 are both a
	// factor 2 away.
	for _, ps := range [][]Point{
		{{1, 2}, {2, 3}, {8, 8}},
		{{8, 8}, {2, 3}, {1, 2}},
	} {
		a, err := Analyse(ps)
		if err != nil {
			t.Fatal(err)
		}
		if ps[a.Ridge].Intensity != 2 {
			t.Errorf("ridge point at %g, want 2", ps[a.Ridge].Intensity)
		}
	}
}

func TestAnalyseRejectsBadSweeps(t *testing.T) {
	for name, ps := range map[string][]Point{
		"empty":          nil,
		"two points":     {{1, 1}, {2, 2}},
		"zero ops":       {{1, 1}, {2, 0}, {4, 4}},
		"negative I":     {{1, 1}, {-2, 2}, {4, 4}},
		"NaN":            {{1, 1}, {2, math.NaN()}, {4, 4}},
		"infinite ops":   {{1, 1}, {2, math.Inf(1)}, {4, 4}},
		"infinite I":     {{1, 1}, {math.Inf(1), 2}, {4, 4}},
		"zero intensity": {{0, 1}, {2, 2}, {4, 4}},
	} {
		if _, err := Analyse(ps); !errors.Is(err, ErrBadSweep) {
			t.Errorf("%s: got %v, want ErrBadSweep", name, err)
		}
	}
}

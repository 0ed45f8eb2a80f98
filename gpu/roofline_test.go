package gpu

import (
	"errors"
	"regexp"
	"testing"
	"time"

	"github.com/everycycle/appraise/wgsl"
)

// testRooflineLimits keeps lavapipe's sweeps short: 4 MiB arrays, a
// 50 ms warm-up per precision and 10 ms per point, and the quick sampling
// budget with samples of at least 20 ms (shorter ones on a 2-core host
// are at the mercy of the scheduler).
func testRooflineLimits() rooflineLimits {
	l := newRooflineLimits(RooflineOptions{}, true)
	l.MinArrayBytes, l.MaxArrayBytes = 64<<10, 4<<20
	l.WarmUp, l.PointWarmUp = 50*time.Millisecond, 10*time.Millisecond
	l.cal.MinSampleS = 20e-3
	return l
}

// sweepRoofline runs the rows given on d with lim, on a grid of at most
// maxPerDim workgroups per dimension.
func sweepRoofline(t *testing.T, d *Device, rows []RooflineKernel, lim rooflineLimits, maxPerDim uint32, tamper tamperFunc) ([]RooflineResult, error) {
	t.Helper()
	n, err := rooflineElements(d.limits, d.memLimit, lim)
	if err != nil {
		t.Fatal(err)
	}
	r := &rooflineRun{d: d, lim: lim, tamper: tamper, maxPerDim: maxPerDim}
	defer r.release()
	if err := r.setup(t.Context(), n); err != nil {
		t.Fatal(err)
	}
	var out []RooflineResult
	for _, k := range rows {
		res, err := r.sweep(t.Context(), k)
		if err != nil {
			return nil, err
		}
		out = append(out, res)
	}
	return out, nil
}

// logSweep logs a sweep's points and analysis and returns the analysis.
func logSweep(t *testing.T, name string, res RooflineResult) (ratio, ridge float64) {
	t.Helper()
	a, err := res.Analyse()
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	t.Logf("%s %s: Ratio %.3f RidgeRatio %.3f (at %g ops/byte); peak %.3g ops/s, bandwidth %.3g B/s; ratios %.2f",
		name, res.Precision, a.Ratio, a.RidgeRatio, res.Points[a.Ridge].Intensity, a.Peak, a.Bandwidth, a.Ratios)
	return a.Ratio, a.RidgeRatio
}

// TestRooflineKernelFilesExist: every entry point the table names is a
// compute function of 256 invocations in roofline.wgsl.
func TestRooflineKernelFilesExist(t *testing.T) {
	src, err := wgsl.Source("roofline")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range (&rooflineRun{lim: rooflineLimits{hidden: func(uint32) uint32 { return 0 }}}).entries() {
		re := regexp.MustCompile(`@compute\s+@workgroup_size\(256\)\s*fn\s+` + regexp.QuoteMeta(e) + `\(`)
		if !re.MatchString(src) {
			t.Errorf("roofline.wgsl has no compute entry point %q of 256 invocations", e)
		}
	}
}

// TestRooflineSweep sweeps both precisions on a 2-D grid with surplus
// workgroups and checks the points' shape and that every element of
// every point was checked.
func TestRooflineSweep(t *testing.T) {
	d := newDevice(t)
	lim := testRooflineLimits()
	lim.MaxArrayBytes = 2 << 20
	lim.cal.MinSampleS, lim.cal.BudgetS = 5e-3, 0.02 // shape and checks only: 3 short samples
	// 128 workgroups on a 19 x 7 grid: 5 surplus ones must exit.
	results, err := sweepRoofline(t, d, RooflineKernels(), lim, 20, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, res := range results {
		logSweep(t, "normal", res)
		if len(res.Points) != len(lim.Iters) || res.Timing != d.Timing() || res.ArrayBytes != lim.MaxArrayBytes {
			t.Errorf("%s: %d points, timing %s, %d-byte arrays", res.Precision, len(res.Points), res.Timing, res.ArrayBytes)
		}
		var elems uint64
		for i, p := range res.Points {
			elems += p.Elements
			if p.Samples < 3 || !(p.MinOpsPerS <= p.OpsPerS && p.OpsPerS <= p.MaxOpsPerS) || p.MinOpsPerS <= 0 {
				t.Errorf("%s point %d: %+v", res.Precision, i, p)
			}
			if i > 0 && p.Intensity != 2*res.Points[i-1].Intensity {
				t.Errorf("%s point %d: intensity %g after %g", res.Precision, i, p.Intensity, res.Points[i-1].Intensity)
			}
		}
		if res.Checked != elems || elems == 0 {
			t.Errorf("%s: %d elements checked of %d", res.Precision, res.Checked, elems)
		}
	}
}

// sweepInterleaved sweeps fp32 once per variant of hidden work (nil: the
// probe's kernel), measuring every variant at one intensity before moving
// to the next, so that load from outside the test (lavapipe shares the
// host's cores) falls on all variants alike.
func sweepInterleaved(t *testing.T, d *Device, variants []func(iters uint32) uint32) []RooflineResult {
	t.Helper()
	lim := testRooflineLimits()
	lim.hidden = func(uint32) uint32 { return 0 } // compile the variant
	n, err := rooflineElements(d.limits, d.memLimit, lim)
	if err != nil {
		t.Fatal(err)
	}
	r := &rooflineRun{d: d, lim: lim, maxPerDim: d.limits.MaxWorkgroupsPerDimension}
	defer r.release()
	k := RooflineKernels()[0]
	if err := r.setup(t.Context(), n); err != nil {
		t.Fatal(err)
	}
	if err := r.fillSrc(k); err != nil {
		t.Fatal(err)
	}
	results := make([]RooflineResult, len(variants))
	ms := make([]uint64, len(variants))
	for v := range variants {
		results[v], ms[v] = RooflineResult{Precision: k.Precision, Timing: d.Timing()}, n
	}
	for _, it := range lim.Iters {
		for v, hidden := range variants {
			r.lim.hidden = hidden
			p, _, err := r.point(t.Context(), k, it, &ms[v])
			if err != nil {
				t.Fatalf("variant %d at %d: %v", v, it, err)
			}
			results[v].Points = append(results[v].Points, p)
		}
	}
	return results
}

// TestRooflineHiddenWork is the test on a real device. A kernel
// variant doing hidden extra work at eight of the eleven intensities, all
// but the two lowest (which set the bandwidth roof) and the highest
// (which sets the peak), falls clearly below the normal kernel's Ratio.
// Its hidden work is 4 uncounted FMAs per counted one, and at least 256
// per element, so each of the eight is slowed well below the roofline the
// other three draw. The same fivefold slowdown at every intensity (a
// slower but consistent device) reads about the normal Ratio.
func TestRooflineHiddenWork(t *testing.T) {
	d := newDevice(t)
	band := func(it uint32) uint32 {
		if it >= 4 && it <= 512 {
			return max(it, 64) // quads of 4 FMAs
		}
		return 0
	}
	everywhere := func(it uint32) uint32 { return it }
	res := sweepInterleaved(t, d, []func(uint32) uint32{nil, band, everywhere})
	normal, _ := logSweep(t, "normal", res[0])
	degraded, _ := logSweep(t, "hidden at 4..512", res[1])
	slower, _ := logSweep(t, "hidden everywhere", res[2])
	if degraded > normal-0.3 || degraded > 0.4 {
		t.Errorf("hidden work at 4..512 operations per element: Ratio %.3f, normal %.3f; want 0.3 below and <= 0.4", degraded, normal)
	}
	if slower < normal-0.15 {
		t.Errorf("hidden work everywhere: Ratio %.3f, normal %.3f; a uniformly slower device should read about the same", slower, normal)
	}
}

// TestRooflineCheckCatchesFault corrupts one word of one point's output
// and expects ErrCheckFailed.
func TestRooflineCheckCatchesFault(t *testing.T) {
	d := newDevice(t)
	lim := testRooflineLimits()
	lim.Iters = []uint32{1, 2, 3}
	for _, k := range RooflineKernels() {
		calls := 0
		tamper := func(precision string, off uint64, chunk []byte) []byte {
			if calls++; calls == 3 { // the third point
				chunk[len(chunk)/2] ^= 0x10
			}
			return chunk
		}
		_, err := measureRoofline(t.Context(), d, []RooflineKernel{k}, lim, tamper)
		if !errors.Is(err, ErrCheckFailed) {
			t.Errorf("%s: corrupted output: got %v, want ErrCheckFailed", k.Precision, err)
		} else {
			t.Logf("%s: %v", k.Precision, err)
		}
	}
}

// TestRooflineShrinksLongDispatches: a point whose dispatch would exceed
// MaxDispatchS runs over a prefix of the arrays, never below
// MinArrayBytes, and every element it processed is still checked.
func TestRooflineShrinksLongDispatches(t *testing.T) {
	d := newDevice(t)
	lim := testRooflineLimits()
	lim.MaxArrayBytes, lim.MinArrayBytes = 2<<20, 256<<10
	lim.Iters, lim.cal.MaxDispatchS, lim.cal.MinSampleS = []uint32{1, 512}, 1e-3, 5e-3
	res, err := measureRoofline(t.Context(), d, RooflineKernels()[1:], lim, nil)
	if err != nil {
		t.Fatal(err)
	}
	ps := res[0].Points
	t.Logf("elements per point: %d, %d", ps[0].Elements, ps[1].Elements)
	if ps[1].Elements >= ps[0].Elements || ps[1].Elements*4 < lim.MinArrayBytes {
		t.Errorf("elements %d then %d; want fewer, not below %d bytes", ps[0].Elements, ps[1].Elements, lim.MinArrayBytes)
	}
	if res[0].Checked != ps[0].Elements+ps[1].Elements {
		t.Errorf("%d elements checked, want %d", res[0].Checked, ps[0].Elements+ps[1].Elements)
	}
}

// TestMeasureRooflineOptions: unknown precisions and arrays capped below
// the minimum are refused before anything runs.
func TestMeasureRooflineOptions(t *testing.T) {
	d := newDevice(t)
	if _, err := MeasureRoofline(t.Context(), d, RooflineOptions{Precisions: []string{"fma.fp64"}}); err == nil {
		t.Error("unknown precision accepted")
	}
	if _, err := MeasureRoofline(t.Context(), d, RooflineOptions{MaxArrayBytes: 1 << 20}); err == nil {
		t.Error("1 MiB arrays accepted")
	}
}

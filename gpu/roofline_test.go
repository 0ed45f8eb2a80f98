package gpu

import (
	"encoding/json"
	"errors"
	"math"
	"os"
	"regexp"
	"slices"
	"testing"
	"time"

	"github.com/cogentcore/webgpu/wgpu"

	"github.com/everycycle/appraise/wgsl"
)

// testRooflineLimits keeps lavapipe's sweeps short: 4 MiB arrays, a
// 50 ms warm-up per precision and 10 ms per point, and the quick sampling
// budget with samples of at least 20 ms (shorter ones on a 2-core host
// are at the mercy of the scheduler).
func testRooflineLimits() rooflineLimits {
	l := newRooflineLimits(RooflineOptions{}, quickEffort)
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
			if p.Iters != lim.Iters[i] || (i > 0 && p.Intensity <= res.Points[i-1].Intensity) {
				t.Errorf("%s point %d: %d iterations (want %d), intensity %g after %g", res.Precision, i, p.Iters, lim.Iters[i], p.Intensity, res.Points[max(i-1, 0)].Intensity)
			}
		}
		if res.Checked != elems || elems == 0 {
			t.Errorf("%s: %d elements checked of %d", res.Precision, res.Checked, elems)
		}
	}
}

// sweepInterleaved sweeps fp32 with lim once per variant of hidden work
// (nil: the probe's kernel), measuring every variant at one intensity
// before moving to the next, so that load from outside the test (lavapipe
// shares the host's cores) falls on all variants alike.
func sweepInterleaved(t *testing.T, d *Device, lim rooflineLimits, variants []func(iters uint32) uint32) []RooflineResult {
	t.Helper()
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
		results[v], ms[v] = RooflineResult{Precision: k.Precision, Timing: d.Timing(), ArrayBytes: n * ElementBytes}, n
	}
	for _, it := range lim.Iters {
		for v, hidden := range variants {
			r.lim.hidden = hidden
			p, checked, err := r.point(t.Context(), k, it, &ms[v], false) // every variant over the whole arrays
			if err != nil {
				t.Fatalf("variant %d at %d: %v", v, it, err)
			}
			results[v].Points = append(results[v].Points, p)
			results[v].Checked += checked
		}
	}
	return results
}

// hiddenBand is TestRooflineHiddenWork's degraded kernel: hidden work at
// eight of the eleven intensities, all but the two lowest (which set the
// bandwidth roof) and the highest (which sets the peak). It is 4 uncounted
// FMAs per counted one, and at least 256 per element, so each of the eight
// is slowed well below the roofline the other three draw.
func hiddenBand(it uint32) uint32 {
	if it >= 4 && it <= 512 {
		return max(it, 64) // quads of 4 FMAs
	}
	return 0
}

// hiddenEverywhere is the same fivefold work at every intensity: a slower
// but consistent device.
func hiddenEverywhere(it uint32) uint32 { return it }

// checkHiddenWork holds sweeps of the probe's kernel, hiddenBand and
// hiddenEverywhere to the claims of the roofline ratio: the degraded
// kernel falls clearly below the normal kernel's Ratio, the uniformly
// slower one reads about the normal Ratio.
func checkHiddenWork(t *testing.T, name string, normal, band, everywhere RooflineResult) {
	t.Helper()
	n, _ := logSweep(t, name+", normal", normal)
	degraded, _ := logSweep(t, name+", hidden at 4..512", band)
	slower, _ := logSweep(t, name+", hidden everywhere", everywhere)
	if degraded > n-0.3 || degraded > 0.4 {
		t.Errorf("%s: hidden work at 4..512 operations per element: Ratio %.3f, normal %.3f; want 0.3 below and <= 0.4", name, degraded, n)
	}
	if slower < n-0.15 {
		t.Errorf("%s: hidden work everywhere: Ratio %.3f, normal %.3f; a uniformly slower device should read about the same", name, slower, n)
	}
}

// hiddenWorkFile holds the three sweeps of TestRooflineHiddenWork as
// recorded on lavapipe by TestRecordRooflineHiddenWork (-gpu.record-roofline).
const hiddenWorkFile = "testdata/roofline-hidden-work.json"

// hiddenWorkRecord is what hiddenWorkFile holds.
type hiddenWorkRecord struct {
	Device, Method           string
	Normal, Band, Everywhere RooflineResult
}

// TestRooflineHiddenWork runs the probe's fp32 kernel, hiddenBand and
// hiddenEverywhere interleaved on a real device at an intensity below,
// inside and above the band and checks what holds on any machine: every
// point's output checked in full, the hidden work left out of the counted
// operations (the same iterations and intensities as the normal kernel),
// at least the minimum of samples. How the ratio reads these sweeps is a
// claim about timings, tested on sweeps recorded on lavapipe
// (TestRooflineHiddenWorkRecorded) and on modelled devices
// (TestRooflineHiddenWorkModel).
func TestRooflineHiddenWork(t *testing.T) {
	d := newDevice(t)
	lim := testRooflineLimits()
	lim.Iters = []uint32{2, 8, 1024}
	checkInterleaved(t, lim, sweepInterleaved(t, d, lim, []func(uint32) uint32{nil, hiddenBand, hiddenEverywhere}))
}

// checkInterleaved checks sweeps of sweepInterleaved: every point's output
// checked in full, each variant at the normal kernel's iterations and
// intensities, at least the minimum of samples.
func checkInterleaved(t *testing.T, lim rooflineLimits, res []RooflineResult) {
	t.Helper()
	for v, r := range res {
		var elems uint64
		for i, p := range r.Points {
			elems += p.Elements
			want := res[0].Points[i]
			if p.Iters != lim.Iters[i] || p.Iters != want.Iters || p.Intensity != want.Intensity ||
				p.Samples < lim.cal.MinSamples || !(0 < p.MinOpsPerS && p.MinOpsPerS <= p.OpsPerS && p.OpsPerS <= p.MaxOpsPerS) {
				t.Errorf("variant %d point %d: %+v (normal kernel %+v)", v, i, p, want)
			}
		}
		if r.Checked != elems || elems == 0 {
			t.Errorf("variant %d: %d elements checked of %d", v, r.Checked, elems)
		}
	}
}

// TestRooflineHiddenWorkRecorded holds sweeps recorded on lavapipe to the
// ratio's claims (checkHiddenWork).
func TestRooflineHiddenWorkRecorded(t *testing.T) {
	b, err := os.ReadFile(hiddenWorkFile)
	if err != nil {
		t.Fatal(err)
	}
	var rec hiddenWorkRecord
	if err := json.Unmarshal(b, &rec); err != nil {
		t.Fatal(err)
	}
	if len(rec.Normal.Points) != len(RooflineIters()) {
		t.Fatalf("%s: %d points, want the full sweep", hiddenWorkFile, len(rec.Normal.Points))
	}
	checkHiddenWork(t, rec.Device, rec.Normal, rec.Band, rec.Everywhere)
}

// modelSweep is the fp32 sweep of a modelled device: memory moves
// bytesPerS, the ALUs do opsPerS, and the two overlap (time is the longer
// of the two) or take turns (serial: the sum, as on lavapipe). hidden, when
// not nil, adds its uncounted FMA quads: 8 operations per scalar each.
func modelSweep(bytesPerS, opsPerS float64, serial bool, hidden func(uint32) uint32) RooflineResult {
	k := RooflineKernels()[0]
	res := RooflineResult{Precision: k.Precision}
	for _, it := range RooflineIters() {
		counted, extra := float64(k.OpsPerOperation)*float64(it), 0.0
		if hidden != nil {
			extra = 8 * float64(hidden(it))
		}
		mem, alu := float64(k.BytesPerElement)/bytesPerS, (counted+extra)/opsPerS
		elemS := max(mem, alu)
		if serial {
			elemS = mem + alu
		}
		res.Points = append(res.Points, RooflinePoint{Iters: it, Intensity: k.Intensity(it), OpsPerS: counted / elemS})
	}
	return res
}

// TestRooflineHiddenWorkModel holds modelled devices to the ratio's claims:
// a software device whose memory and compute take turns and a GPU on
// which they overlap.
func TestRooflineHiddenWorkModel(t *testing.T) {
	for _, m := range []struct {
		name               string
		bytesPerS, opsPerS float64
		serial             bool
	}{
		{"serial software device", 10e9, 40e9, true},
		{"overlapping GPU", 4e12, 60e12, false},
	} {
		sweep := func(h func(uint32) uint32) RooflineResult { return modelSweep(m.bytesPerS, m.opsPerS, m.serial, h) }
		checkHiddenWork(t, m.name, sweep(nil), sweep(hiddenBand), sweep(hiddenEverywhere))
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

// TestRooflineShrinksLongDispatches: the first point, the most
// memory-bound, and the second (before the sweep knows what compute costs)
// run over the whole arrays however short MaxDispatchS is; the third runs
// over a prefix of MinArrayBytes when the sweep's own fastest samples judge
// it compute-bound (roofComputeBound), and over the whole arrays when
// MaxDispatchS is longer than any dispatch. Every element processed is
// checked. How far a dispatch of a given time shrinks is
// TestRooflineShrinkSequence's.
func TestRooflineShrinksLongDispatches(t *testing.T) {
	d := newDevice(t)
	const whole, least = 2 << 20, 256 << 10
	for _, maxDispatchS := range []float64{1e-9, 1e9} {
		lim := testRooflineLimits()
		lim.MaxArrayBytes, lim.MinArrayBytes = whole, least
		lim.Iters, lim.cal.MaxDispatchS, lim.cal.MinSampleS = []uint32{1, 256, 1024}, maxDispatchS, 5e-3
		k := RooflineKernels()[1]
		res, err := measureRoofline(t.Context(), d, []RooflineKernel{k}, lim, nil)
		if err != nil {
			t.Fatal(err)
		}
		// The sweep's judgement, from the same fastest samples it used.
		var s pointSizes
		var total uint64
		for i, p := range res[0].Points {
			it := lim.Iters[i]
			want := uint64(whole)
			if maxDispatchS < 1 && s.computeBound(it) {
				want = least
			}
			if p.Elements*4 != want {
				t.Errorf("MaxDispatchS %g, point %d: %d elements, want %d bytes' worth", maxDispatchS, i, p.Elements, want)
			}
			s.measured(it, float64(whole)*float64(it)*float64(k.OpsPerOperation)/p.MaxOpsPerS)
			total += p.Elements
		}
		t.Logf("MaxDispatchS %g: points %+v", maxDispatchS, res[0].Points)
		if res[0].Checked != total {
			t.Errorf("%d elements checked, want %d", res[0].Checked, total)
		}
	}
}

// TestRooflineShrinkSequence runs the sweep's shrinking on modelled
// dispatch times (proportional to elements times iterations, plus a fixed
// cost for memory): each point starts from the elements the one before it
// kept and, once its compute alone takes more than roofComputeBound times
// the first point's dispatch, halves them in whole workgroup blocks while
// a dispatch would exceed MaxDispatchS, stopping at MinArrayBytes. A slow
// memory-bound start (a loaded host) keeps the whole arrays until compute
// dominates; how long a warm-up dispatch took (a loaded host slows one
// many times) decides nothing. Each point starts (pointSizes.start) from
// the elements it keeps: no warm-up runs over more.
func TestRooflineShrinkSequence(t *testing.T) {
	lim := testRooflineLimits()
	lim.MaxArrayBytes, lim.MinArrayBytes, lim.cal.MaxDispatchS = 64<<20, 2<<20, 0.1
	const perElementIter = 1e-9 // seconds per vec4 element and counted operation
	full := lim.MaxArrayBytes / ElementBytes
	for _, c := range []struct {
		name    string
		fixedS  float64 // per element, whatever the iterations: memory
		wantMiB []uint64
	}{
		// 4 Mi elements at 1e-9 s per operation: whole arrays up to 16
		// operations, then halving per doubling until the 2 MiB floor
		// holds the last point above MaxDispatchS.
		{"fast memory", 0, []uint64{64, 64, 64, 64, 64, 32, 16, 8, 4, 2, 2}},
		// Memory alone takes 0.2 s a dispatch, past MaxDispatchS: the
		// points stay whole until compute is 4 times that.
		{"slow memory", 5e-8, []uint64{64, 64, 64, 64, 64, 64, 64, 64, 4, 2, 2}},
	} {
		var sizes pointSizes
		m := full
		var got []uint64
		for _, it := range RooflineIters() {
			model := func(n uint64) float64 { return (c.fixedS + perElementIter*float64(it)) * float64(n) }
			shrink := sizes.computeBound(it)
			if shrink {
				m = sizes.start(it, m, full, lim.shrinkLimits())
			}
			n, expect := m, model(m)
			if shrink {
				n, expect = shrinkElements(model(m), m, lim.shrinkLimits())
			}
			if n != m {
				t.Errorf("%s, %d operations per element: started from %d elements, kept %d", c.name, it, m, n)
			}
			if n > m || n%roofBlock != 0 || n*ElementBytes < lim.MinArrayBytes {
				t.Errorf("%s, %d operations per element: %d elements after %d", c.name, it, n, m)
			}
			if want := model(n); math.Abs(expect-want) > 1e-9 {
				t.Errorf("%s, %d operations per element: %d elements expected to take %g s (model %g s)", c.name, it, n, expect, want)
			}
			sizes.measured(it, model(full))
			m = n
			got = append(got, n*ElementBytes>>20)
		}
		if !slices.Equal(got, c.wantMiB) {
			t.Errorf("%s: MiB per point %v, want %v", c.name, got, c.wantMiB)
		}
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

// TestRooflineShortKernels runs each row's Entry and Short at counts of
// operations around Unroll (none, part or several of Entry's unrolled
// trips, odd and even), and One at its one operation, on the device and
// checks every element of each exactly: all compute the same closed form,
// whichever the sweep picks.
func TestRooflineShortKernels(t *testing.T) {
	d := newDevice(t)
	lim := testRooflineLimits()
	lim.MaxArrayBytes = 1 << 20
	n, err := rooflineElements(d.limits, d.memLimit, lim)
	if err != nil {
		t.Fatal(err)
	}
	r := &rooflineRun{d: d, lim: lim, maxPerDim: d.limits.MaxWorkgroupsPerDimension}
	defer r.release()
	if err := r.setup(t.Context(), n); err != nil {
		t.Fatal(err)
	}
	for _, k := range RooflineKernels() {
		if err := r.fillSrc(k); err != nil {
			t.Fatal(err)
		}
		for _, it := range []uint32{1, 2, 3, k.Unroll - 1, k.Unroll, k.Unroll + 1, 2*k.Unroll + 3} {
			entries := []string{k.Entry, k.Short}
			if it == 1 {
				entries = append(entries, k.One)
			}
			for _, entry := range entries {
				a := &roofDispatch{row: k, iters: it, dispatch: dispatch{k: r.ks.kernels[entry], bg: r.sweepBG[entry]}}
				if err := r.set(a, n); err != nil {
					t.Fatal(err)
				}
				if err := r.clearDst(n); err != nil {
					t.Fatal(err)
				}
				if err := r.d.run(func(enc *wgpu.CommandEncoder) error { return record(enc, []dispatch{a.dispatch}, 1) }); err != nil {
					t.Fatal(err)
				}
				checked, err := r.check(a)
				if err != nil || checked != n*4 {
					t.Errorf("%s %s at %d operations: %d of %d checked, %v", k.Precision, entry, it, checked, n*4, err)
				}
			}
		}
	}
}

// TestRooflineEntry: a software adapter runs One at one operation, Short
// from two to below Unroll operations, Entry from there on, and Entry
// everywhere with noShort; a GPU runs Entry everywhere.
func TestRooflineEntry(t *testing.T) {
	for _, k := range RooflineKernels() {
		for _, c := range []struct {
			software, noShort bool
			iters             uint32
			want              string
		}{
			{true, false, 1, k.One}, {true, false, 2, k.Short}, {true, false, k.Unroll - 1, k.Short}, {true, false, k.Unroll, k.Entry},
			{true, true, 1, k.Entry}, {false, false, 1, k.Entry}, {false, false, k.Unroll - 1, k.Entry},
		} {
			r := &rooflineRun{d: &Device{info: AdapterInfo{Software: c.software}}, lim: rooflineLimits{noShort: c.noShort}}
			if got := r.entry(k, c.iters); got != c.want {
				t.Errorf("%s, software %t, noShort %t, %d operations: %s, want %s", k.Precision, c.software, c.noShort, c.iters, got, c.want)
			}
		}
	}
}

// TestRooflinePointWarmUp: a GPU warms up PointWarmUp before each point,
// a software adapter for one dispatch.
func TestRooflinePointWarmUp(t *testing.T) {
	lim := newRooflineLimits(RooflineOptions{}, quickEffort)
	for _, software := range []bool{false, true} {
		r := &rooflineRun{d: &Device{info: AdapterInfo{Software: software}}, lim: lim}
		want := lim.PointWarmUp
		if software {
			want = 0
		}
		if got := r.pointWarmUp(); got != want {
			t.Errorf("software %t: %v, want %v", software, got, want)
		}
	}
}

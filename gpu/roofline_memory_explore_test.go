//go:build explore

// Research harnesses of the memory consistency rule: why the
// roofline's memory roof read 0.74–0.84 of the copy kernel on a software
// adapter. Run them with go test -tags explore -run RecordMemory -v.

package gpu

import (
	"fmt"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/cogentcore/webgpu/wgpu"

	"github.com/everycycle/appraise/internal/measure/stats"
	"github.com/everycycle/appraise/wgsl"
)

// dissectWGSL are kernels between the copy kernel and the roofline's
// memory-bound point, each moving one read and one write of a vec4 per
// element in the roofline's block shape: with no arithmetic, and with one
// FMA per scalar in a loop of one trip (roofline_f32_short at 1 without
// its select).
const dissectWGSL = `
struct Params { groups: u32, n: u32, a: f32, b: f32, iters: u32, _p0: u32, _p1: u32, _p2: u32 }
@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read> src: array<vec4<f32>>;
@group(0) @binding(2) var<storage, read_write> dst: array<vec4<f32>>;
const WG: u32 = 256u;
const BLOCK: u32 = 1024u;

@compute @workgroup_size(256)
fn block_copy(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let g = wid.y * nwg.x + wid.x;
    if (g >= p.groups) { return; }
    let e = g * BLOCK + lid;
    let x0 = src[e]; let x1 = src[e + WG]; let x2 = src[e + 2u * WG]; let x3 = src[e + 3u * WG];
    dst[e] = x0; dst[e + WG] = x1; dst[e + 2u * WG] = x2; dst[e + 3u * WG] = x3;
}

// block_loop: one FMA per scalar in a loop of p.iters trips (1).
@compute @workgroup_size(256)
fn block_loop(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let g = wid.y * nwg.x + wid.x;
    if (g >= p.groups) { return; }
    let e = g * BLOCK + lid;
    let a = vec4<f32>(p.a);
    let b = vec4<f32>(p.b);
    var x0 = src[e]; var x1 = src[e + WG]; var x2 = src[e + 2u * WG]; var x3 = src[e + 3u * WG];
    for (var k = 0u; k < p.iters; k++) {
        x0 = fma(x0, a, b); x1 = fma(x1, a, b); x2 = fma(x2, a, b); x3 = fma(x3, a, b);
    }
    dst[e] = x0; dst[e + WG] = x1; dst[e + 2u * WG] = x2; dst[e + 3u * WG] = x3;
}
`

// TestRecordMemoryRoofVsCopy times, interleaved one dispatch at a time so
// that load from outside falls on all alike, over arrays of EXPLORE_MIB
// MiB each (default 64, the quick software size): the copy kernel at 4 and
// 8 elements per invocation and over a sixteenth of its arrays (held by
// the host's caches), dissectWGSL's kernels, and the roofline's 1-op
// point run by its Short and One kernels. It logs each one's bytes/s (by
// its table's bytes, 32 per vec4 element) and the median over
// EXPLORE_ROUNDS rounds (default 15) of its ratio to copy's in the same
// round. EXPLORE_ONLY=NAME times that variant alone, for a profiler.
func TestRecordMemoryRoofVsCopy(t *testing.T) {
	mib, rounds := envInt(t, "EXPLORE_MIB", 64), envInt(t, "EXPLORE_ROUNDS", 15)
	d := newDeviceOpts(t, Options{Quick: true})
	n := (uint64(mib) << 20) / ElementBytes / roofBlock * roofBlock // below the probe's floor too: caches are a question
	t.Logf("arrays %d MiB, memory limit %d MiB", n*ElementBytes>>20, d.memLimit>>20)
	vs := append(copyVariants(t, d, n), dissectVariants(t, d, n)...)
	if only := os.Getenv("EXPLORE_ONLY"); only != "" {
		vs = slices.DeleteFunc(vs, func(v variant) bool { return v.name != only })
	}
	rates, ratios := interleave(t, vs, rounds, float64(n*32))
	for j, v := range vs {
		r, q := sorted(rates[j]), sorted(ratios[j])
		t.Logf("%-26s median %5.2f GB/s (min %5.2f, max %5.2f)  ÷ copy per=4 in its round: median %.3f (quartiles %.3f–%.3f)",
			v.name, stats.Median(r)/1e9, r[0]/1e9, r[len(r)-1]/1e9, stats.Median(q), q[len(q)/4], q[3*len(q)/4])
	}
}

// variant is one kernel of TestRecordMemoryRoofVsCopy: run times one
// dispatch of it, in seconds.
type variant struct {
	name string
	run  func() (float64, error)
}

// copyVariants are the bandwidth probe's copy kernel over n elements at 4
// (first: the reference) and 8 per invocation, and at 4 over a sixteenth
// of them (4 MiB of 64), which the host's caches hold, sixteen times in
// one submission: does copy run faster where memory is nearer?
func copyVariants(t *testing.T, d *Device, n uint64) []variant {
	bw := &bandwidthRun{d: d, lim: bandwidthLimits(true), maxPerDim: d.limits.MaxWorkgroupsPerDimension}
	t.Cleanup(bw.release)
	if err := bw.setup(n); err != nil {
		t.Fatal(err)
	}
	if err := bw.fill(); err != nil {
		t.Fatal(err)
	}
	over := func(m, per uint64) func() (float64, error) {
		return func() (float64, error) {
			defer bw.resize(n)
			ds := bw.disp["copy"]
			if err := bw.resize(m); err != nil {
				return 0, err
			}
			if err := bw.setPer(ds, per); err != nil {
				return 0, err
			}
			reps := int(n / m) // the bytes of one dispatch over n, in one submission
			s, err := d.timeWork(work(ds.dispatch, reps))
			return s * float64(n) / float64(m*uint64(reps)), err
		}
	}
	small := n / 16 / roofBlock * roofBlock
	return []variant{{"copy per=4", over(n, 4)}, {"copy per=8", over(n, 8)},
		{fmt.Sprintf("copy per=4 over %d MiB", small*ElementBytes>>20), over(small, 4)}}
}

// dissectVariants are dissectWGSL's kernels and the roofline's 1-op point
// (Short and One of each row) over a roofline run's arrays of n elements.
func dissectVariants(t *testing.T, d *Device, n uint64) []variant {
	rr := &rooflineRun{d: d, lim: newRooflineLimits(RooflineOptions{}, true), maxPerDim: d.limits.MaxWorkgroupsPerDimension}
	t.Cleanup(rr.release)
	if err := rr.setup(t.Context(), n); err != nil {
		t.Fatal(err)
	}
	rows := RooflineKernels()
	if err := rr.fillSrc(rows[0]); err != nil {
		t.Fatal(err)
	}
	x, y, err := grid(uint32(n/roofBlock), d.limits.MaxWorkgroupsPerDimension)
	if err != nil {
		t.Fatal(err)
	}
	var vs []variant
	for _, ds := range dissectDispatches(t, d, rr, n, x, y) {
		vs = append(vs, variant{ds.k.entry, func() (float64, error) { return d.timeWork(work(ds, 1)) }})
	}
	for _, k := range rows {
		for _, entry := range []string{k.Short, k.One} {
			vs = append(vs, variant{entry + " iters=1", func() (float64, error) {
				a := &roofDispatch{row: k, iters: 1, dispatch: dispatch{k: rr.ks.kernels[entry], bg: rr.sweepBG[entry]}}
				if err := rr.set(a, n); err != nil {
					return 0, err
				}
				return d.timeWork(work(a.dispatch, 1))
			}})
		}
	}
	return vs
}

// dissectDispatches compiles dissectWGSL and binds each of its kernels to
// rr's arrays, one trip for block_loop, on an x by y grid.
func dissectDispatches(t *testing.T, d *Device, rr *rooflineRun, n uint64, x, y uint32) []dispatch {
	entries := []string{"block_copy", "block_loop"}
	ks := &kernelSet{bindings: wgsl.Bindings(dissectWGSL), dummies: map[uint32]*wgpu.Buffer{}, kernels: map[string]*kernel{}}
	t.Cleanup(ks.release)
	if err := d.buildSet(ks, "dissect", dissectWGSL, entries); err != nil {
		t.Fatal(err)
	}
	pb, err := d.uniformBuffer("dissect", words(uint32(n/roofBlock), uint32(n), f32(1), f32(0), 1, 0, 0, 0))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pb.Release)
	var ds []dispatch
	for _, e := range entries {
		bg, err := d.bindGroup(ks.kernels[e], binding{0, pb}, binding{1, rr.src}, binding{2, rr.dst})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(bg.Release)
		ds = append(ds, dispatch{k: ks.kernels[e], bg: bg, x: x, y: y})
	}
	return ds
}

// interleave runs every variant once a round, rounds+1 times, and
// returns each one's bytes/s (moved over its time) and its time's ratio
// to the first variant's of the same round; the first round, which
// touches the pages, is left out.
func interleave(t *testing.T, vs []variant, rounds int, moved float64) (rates, ratios [][]float64) {
	rates, ratios = make([][]float64, len(vs)), make([][]float64, len(vs))
	for i := range rounds + 1 {
		ts := make([]float64, len(vs))
		for j, v := range vs {
			s, err := v.run()
			if err != nil {
				t.Fatalf("%s: %v", v.name, err)
			}
			ts[j] = s
		}
		for j := range vs {
			if i > 0 {
				rates[j] = append(rates[j], moved/ts[j])
				ratios[j] = append(ratios[j], ts[0]/ts[j])
			}
		}
	}
	return rates, ratios
}

func sorted(xs []float64) []float64 {
	out := slices.Clone(xs)
	sort.Float64s(out)
	return out
}

func envInt(t *testing.T, name string, def int) int {
	t.Helper()
	s := os.Getenv(name)
	if s == "" {
		return def
	}
	v, err := strconv.Atoi(s)
	if err != nil {
		t.Fatalf("%s=%q: %v", name, s, err)
	}
	return v
}

// TestRecordMemoryRuleProbes measures, in turn and EXPLORE_ROUNDS times
// (default 9), what the memory consistency rule holds against each other
// on a --quick device: the stream probe's copy kernel (its trial of
// elements per invocation, its samples, their median) and the roofline
// probe's fp32 and int32 sweeps over the software adapter's quick points
// (the kernels rooflineRun.entry picks), and logs each round's memory
// roof ÷ copy and the median over rounds.
func TestRecordMemoryRuleProbes(t *testing.T) {
	rounds := envInt(t, "EXPLORE_ROUNDS", 9)
	d := newDeviceOpts(t, Options{Quick: true})
	var fp32, int32, fp32Best, int32Best []float64
	for i := range rounds {
		bw, err := MeasureBandwidthKernels(t.Context(), d, []string{"copy"})
		if err != nil {
			t.Fatal(err)
		}
		rs, err := MeasureRoofline(t.Context(), d, RooflineOptions{MaxArrayBytes: minArrayBytes})
		if err != nil {
			t.Fatal(err)
		}
		copyBW, copyBest := bw[0].BytesPerS.Median, bw[0].BytesPerS.Max
		var line []string
		for j, r := range rs {
			a, err := r.Analyse()
			if err != nil {
				t.Fatal(err)
			}
			// The same roof from each point's fastest sample, against
			// copy's fastest: what the rule would read if it weighed the
			// least disturbed samples.
			best := r
			best.Points = slices.Clone(r.Points)
			for k := range best.Points {
				best.Points[k].OpsPerS = best.Points[k].MaxOpsPerS
			}
			b, err := best.Analyse()
			if err != nil {
				t.Fatal(err)
			}
			line = append(line, fmt.Sprintf("%s %.2f GB/s (%.3f; fastest samples %.3f)", r.Precision, a.Bandwidth/1e9, a.Bandwidth/copyBW, b.Bandwidth/copyBest))
			if j == 0 {
				fp32 = append(fp32, a.Bandwidth/copyBW)
				fp32Best = append(fp32Best, b.Bandwidth/copyBest)
			} else {
				int32 = append(int32, a.Bandwidth/copyBW)
				int32Best = append(int32Best, b.Bandwidth/copyBest)
			}
		}
		t.Logf("round %d: copy %.2f GB/s (per=%d); %s", i, copyBW/1e9, bw[0].PerInvocation, strings.Join(line, ", "))
	}
	t.Logf("memory roof ÷ copy, median of %d rounds: fp32 %.3f (%.3f–%.3f), int32 %.3f (%.3f–%.3f)", rounds,
		stats.Median(fp32), slices.Min(fp32), slices.Max(fp32), stats.Median(int32), slices.Min(int32), slices.Max(int32))
	t.Logf("the same from the fastest samples: fp32 %.3f (%.3f–%.3f), int32 %.3f (%.3f–%.3f)",
		stats.Median(fp32Best), slices.Min(fp32Best), slices.Max(fp32Best), stats.Median(int32Best), slices.Min(int32Best), slices.Max(int32Best))
}

package alu

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/everycycle/appraise/internal/measure/packed"
	"github.com/everycycle/appraise/schema"

	"github.com/everycycle/appraise/coopmat/spirv"
	"github.com/everycycle/appraise/coopmat/vk"
	"github.com/everycycle/appraise/coopmat/vk/vktest"
)

// r16 rounds v to the nearest fp16 value (v a small multiple of 2^-2, so
// the float32 conversion is exact).
func r16(v float64) float64 { return vk.F16Value(vk.F16Bits(float32(v))) }

// stepFP16 runs pairs of the fp16 recurrence from start, rounding to fp16
// after every FMA (fused) or after every multiply and add (unfused); it
// reports the end value and whether any rounding changed a value.
func stepFP16(start float64, pairs uint32, fused bool) (float64, bool) {
	x, rounded := start, false
	op := func(x, a, b float64) float64 {
		v := x*a + b // exact in float64
		if !fused {
			p := r16(x * a)
			rounded = rounded || p != x*a
			v = p + b
		}
		r := r16(v)
		rounded = rounded || r != v
		return r
	}
	for range pairs {
		x = op(op(x, 2, 6*fp16Grid), 0.5, -2*fp16Grid)
	}
	return x, rounded
}

// TestFMA16Exact steps every chain start at the largest pair count the
// kernel allows, fused and unfused, and finds no rounding and the closed
// form; one multiple of the unroll further, a value rounds.
func TestFMA16Exact(t *testing.T) {
	k := fma16Kernel{Chains: 8, Lanes: 4, Unroll: 4, Iters: fp16MaxPairs / 4}
	if !k.exact() {
		t.Fatalf("%d pairs not exact", k.pairs())
	}
	for off := range int64(fp16Offsets) {
		for _, fused := range []bool{true, false} {
			n := int64(k.base()) + off
			got, rounded := stepFP16(float64(n)*fp16Grid, k.pairs(), fused)
			if want := vk.F16Value(fp16At(n + int64(k.pairs()))); rounded || got != want {
				t.Fatalf("offset %d fused=%v: end %g (rounded %v), closed form %g", off, fused, got, rounded, want)
			}
		}
	}
	k.Iters++
	if k.exact() {
		t.Fatalf("%d pairs reported exact", k.pairs())
	}
	if _, rounded := stepFP16(float64(int64(k.base())+fp16Offsets-1)*fp16Grid, k.pairs(), true); !rounded {
		t.Fatalf("%d pairs: the top chain never rounded; the bound is not tight", k.pairs())
	}
}

// TestFMA16Reference recomputes a small kernel's outputs by stepping each
// lane and packing the fp16 bits as the GPU's bitcast does.
func TestFMA16Reference(t *testing.T) {
	k := fma16Kernel{Chains: 3, Lanes: 4, Iters: 5, Unroll: 2}
	for gid := range uint32(40) {
		h := vk.FnvBasis
		for c := range k.Chains {
			var bits [4]uint32
			for l := range k.Lanes {
				x, _ := stepFP16(float64(int64(k.base())+int64(k.offset(gid, c, l)))*fp16Grid, k.pairs(), true)
				bits[l] = uint32(vk.F16Bits(float32(x)))
			}
			h = vk.Fnv(vk.Fnv(h, bits[0]|bits[1]<<16), bits[2]|bits[3]<<16)
		}
		if got := k.reference(gid); got != h {
			t.Fatalf("gid %d: reference %#x, stepped %#x", gid, got, h)
		}
	}
}

// TestDot4Products checks the weights and the kernel's round (the dot
// products themselves are tested in internal/packed).
func TestDot4Products(t *testing.T) {
	if got := packed.Dot4I8(dotWI8, 0x01010101); got != 3-5+7-11 {
		t.Errorf("packed.Dot4I8(w, 1s) = %d", got)
	}
	if got := packed.Dot4U8(dotWU8, 0xFFFFFFFF); got != 255*(3+5+7+11) {
		t.Errorf("packed.Dot4U8(w, 255s) = %d", got)
	}
	k := dot4Kernel{Signed: true, Chains: 2, Iters: 1, Unroll: 1}
	a, b := dotStart(5, 1)
	a2, b2 := k.round(a, b)
	if a2 != a+uint32(packed.Dot4I8(b, dotWI8)) || b2 != b+uint32(packed.Dot4I8(a2, dotWI8)) {
		t.Errorf("round(%#x, %#x) = %#x, %#x", a, b, a2, b2)
	}
}

// TestBuilderFNVWords checks the words of the emitted FNV-1a step and of
// an fp16 splat constant.
func TestBuilderFNVWords(t *testing.T) {
	b := vk.NewBuilder(spirv.Version16)
	h, w := b.C(11), b.C(22)
	r := b.Fnv(h, w)
	hv := b.M.TypeVector(b.M.TypeFloat(16), 2)
	c := half(b, hv, 2, -0.5)
	words := b.Finish(1, 1, 1)
	prime := b.C(vk.FnvPrime) // allocated between the XOR and the multiply
	x := uint32(prime) - 1
	xor := []uint32{5<<16 | 198, uint32(b.U32), x, uint32(h), uint32(w),
		5<<16 | 132, uint32(b.U32), uint32(r), x, uint32(prime)}
	if !containsRun(words, xor) {
		t.Errorf("module lacks %#x", xor)
	}
	half := b.M.TypeFloat(16)
	splat := []uint32{4<<16 | 43, uint32(half), uint32(c) - 1, 0xB800, 5<<16 | 44, uint32(hv), uint32(c), uint32(c) - 1, uint32(c) - 1}
	if !containsRun(words, splat) {
		t.Errorf("module lacks %#x", splat)
	}
}

func containsRun(words, run []uint32) bool {
	for i := range words {
		if slices.Equal(words[i:min(i+len(run), len(words))], run) {
			return true
		}
	}
	return false
}

// TestFMA16EveryForm runs every way of writing the fp16 step (constant or
// loaded operands) in vec2 and vec4 lanes, each checked exactly against
// the same closed form.
func TestFMA16EveryForm(t *testing.T) {
	d := vktest.Device(t)
	if !d.Enabled.Float16 {
		t.Skipf("%s has no shaderFloat16", d.Info.Name)
	}
	for _, k := range fma16Explore() {
		r, err := runFMA16(context.Background(), d, smallOptions(), k)
		if err != nil {
			t.Fatalf("%s lanes=%d: %v", k.Form, k.Lanes, err)
		}
		if !strings.HasPrefix(r.Tile, k.Form.String()+" ") {
			t.Errorf("%s: tile %q does not name the form", k.Form, r.Tile)
		}
		logVector(t, r)
	}
}

// fma16Explore is every form in vec2 and vec4 lanes, 32 values per
// invocation.
func fma16Explore() []fma16Kernel {
	var out []fma16Kernel
	for _, f := range []fp16Form{fp16FMA, fp16FMALoaded} {
		out = append(out, fma16Kernel{Chains: 16, Lanes: 2, Unroll: 8, Local: 256, Form: f},
			fma16Kernel{Chains: 8, Lanes: 4, Unroll: 8, Local: 256, Form: f})
	}
	return out
}

// TestFMA16Forms runs every form RunFMA16 chooses from (vec2 lanes, whose
// output word is one bitcast vector rather than two), each checked
// exactly, and RunFMA16 names the fastest.
func TestFMA16Forms(t *testing.T) {
	d := vktest.Device(t)
	if !d.Enabled.Float16 {
		t.Skipf("%s has no shaderFloat16", d.Info.Name)
	}
	best := 0.0
	for _, k := range fma16Forms() {
		r, err := runFMA16(context.Background(), d, smallOptions(), k)
		if err != nil {
			t.Fatal(err)
		}
		logVector(t, r)
		best = max(best, r.OpsPerSecond.Median)
	}
	r, err := RunFMA16(context.Background(), d, smallOptions())
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(r.Tile, "lanes=") || !strings.Contains(r.Tile, " (") || len(r.Tile) > 64 || r.OpsPerSecond.Median <= 0 {
		t.Errorf("RunFMA16: tile %q, %g op/s", r.Tile, r.OpsPerSecond.Median)
	}
}

// TestFMA16Rule: the rule's candidates share one shape and differ in
// form; with recorded run times it measures the second form only while
// the budget holds it and the kept form's guards, keeps the faster, and
// names both (within the card's 64 characters).
func TestFMA16Rule(t *testing.T) {
	forms := fma16Forms()
	if len(forms) < 2 || len(forms) > 3 {
		t.Fatalf("%d candidate forms, want 2 or 3", len(forms))
	}
	for _, k := range forms[1:] {
		if k.Form == forms[0].Form || strings.TrimPrefix(k.tile(), k.Form.String()) != strings.TrimPrefix(forms[0].tile(), forms[0].Form.String()) {
			t.Errorf("%s: not the shape of %s in another form", k.tile(), forms[0].tile())
		}
	}
	for _, tc := range []struct {
		name  string
		run   time.Duration // every measurement and guard run takes this
		rates []float64
		want  string // the Tile's start
		timed int    // forms measured
		spent time.Duration
	}{
		{"both timed, loaded faster", 450 * time.Millisecond, []float64{2, 1}, "fma-loaded (over fma) local=256", 2, 1800 * time.Millisecond},
		{"both timed, constant faster", 450 * time.Millisecond, []float64{1, 2}, "fma (over fma-loaded) local=256", 2, 1800 * time.Millisecond},
		{"slow runs: second not timed", 700 * time.Millisecond, []float64{1, 2}, "fma-loaded (fma not timed) local=256", 1, 2100 * time.Millisecond},
	} {
		t.Run(tc.name, func(t *testing.T) {
			clock := time.Unix(0, 0)
			now := func() time.Time { return clock }
			measured := 0
			measure := func(k fma16Kernel) (vk.Result, error) {
				clock = clock.Add(tc.run)
				measured++
				return vk.Result{Probe: vk.ProbeFMA16, Tile: k.tile(), OpsPerSecond: schema.Stat{Median: tc.rates[int(k.Form)^1]}}, nil
			}
			guard := func(fma16Kernel) (string, error) { clock = clock.Add(2 * tc.run); return "", nil }
			r, err := chooseForm(forms, measure, guard, now)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.HasPrefix(r.Tile, tc.want) || len(r.Tile) > 64 || measured != tc.timed || clock.Sub(time.Unix(0, 0)) != tc.spent {
				t.Errorf("tile %q, %d measured, %v spent; want %q…, %d, %v", r.Tile, measured, clock.Sub(time.Unix(0, 0)), tc.want, tc.timed, tc.spent)
			}
			if tc.timed == len(forms) && tc.spent > formBudget {
				t.Errorf("the rule took %v, over its %v", tc.spent, formBudget)
			}
		})
	}
	if got := formsName(forms, 1, []string{"folded", ""}); got != "fma (fma-loaded folded) local=256 chains=16 lanes=2 unroll=8" {
		t.Errorf("formsName = %q", got)
	}
}

// TestFoldRatios: a form that runs more than foldLimit faster per
// operation than with half the work, or than with a quarter of the unroll,
// was not run as written; a ratio is judged as the median over rounds, so
// a device whose speed drifts between rounds holds.
func TestFoldRatios(t *testing.T) {
	k := fma16Forms()[0]
	for _, tc := range []struct {
		name        string
		full, other []float64 // rates per round
		ratio       float64
		folds       bool
	}{
		// a software device on a shared host: rounds 1.8× apart, each round alike
		{"drifting", []float64{1.3e10, 2.3e10, 1.8e10, 2.3e10, 1.2e10, 2.4e10, 1.7e10}, []float64{1.2e10, 2.2e10, 1.9e10, 2.1e10, 1.3e10, 2.3e10, 1.6e10}, 2.3 / 2.2, false},
		{"one round slowed", []float64{2e10, 2e10, 2e10, 2e10, 2e10, 2e10, 2e10}, []float64{2e10, 2e10, 1e9, 2e10, 2e10, 2e10, 2e10}, 1, false},
		// a chain the driver folded: 7,190 TFLOP/s, 3,600 with half the work
		{"folded", []float64{7.19e15, 7.2e15, 7.18e15, 7.19e15, 7.2e15, 7.19e15, 7.19e15}, []float64{3.6e15, 3.6e15, 3.59e15, 3.6e15, 3.6e15, 3.61e15, 3.6e15}, 7.19e15 / 3.6e15, true},
		{"even rounds", []float64{4, 4, 4, 4}, []float64{1, 2, 4, 4}, 1.5, false},
	} {
		got := medianRatio(tc.full, tc.other)
		if math.Abs(got-tc.ratio) > 1e-9*tc.ratio {
			t.Errorf("%s: median ratio %g, want %g", tc.name, got, tc.ratio)
		}
		for _, r := range []foldRatios{{k: k, grow: got, apart: 1}, {k: k, grow: 1, apart: got}} {
			if (r.folded() != "") != tc.folds {
				t.Errorf("%s: %+v folded %q, want folded %t", tc.name, r, r.folded(), tc.folds)
			}
		}
	}
	if got := (foldRatios{k: k, apart: 1.2}).folded(); got != "" {
		t.Errorf("no grow ratio (half the pairs not fewer): folded %q", got)
	}
	if got := (foldRatios{k: k, grow: 1.02, apart: 2.16}).folded(); got != k.tile()+": 1.02× the rate with half the pairs, 2.16× unrolled 2 times" {
		t.Errorf("folded() = %q", got)
	}
}

// TestFoldGuardLower: over its tries the guard keeps each ratio's lowest:
// a try that read high once holds beside one that did not, in either
// order, and a fold, high in every try, stays folded.
func TestFoldGuardLower(t *testing.T) {
	k := fma16Forms()[0]
	high, idle := foldRatios{k: k, grow: 1.52, apart: 1.6}, foldRatios{k: k, grow: 1.01, apart: 0.97}
	if high.folded() == "" || idle.folded() != "" {
		t.Fatalf("high alone %q, idle alone %q; want folded, held", high.folded(), idle.folded())
	}
	if why := high.lower(idle).folded(); why != "" {
		t.Errorf("high then idle: %s", why)
	}
	if why := idle.lower(high).folded(); why != "" {
		t.Errorf("idle then high: %s", why)
	}
	folded := foldRatios{k: k, grow: 2, apart: 1}
	if folded.lower(foldRatios{k: k, grow: 1.9, apart: 0.8}).folded() == "" {
		t.Error("a fold held beside another try that read it folded")
	}
}

// TestFoldGuardOnDevice runs the guard's three kernels in turn: every
// output checks, each ratio is a positive median over its rounds, and a
// corrupted output of any of the three fails the guard. RunAlternating
// returns every run's output and one rate per round.
func TestFoldGuardOnDevice(t *testing.T) {
	d := vktest.Device(t)
	if !d.Enabled.Float16 {
		t.Skipf("%s has no shaderFloat16", d.Info.Name)
	}
	for _, k := range fma16Forms() {
		r, err := guardRatios(context.Background(), d, smallOptions(), k)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: grow %.3f, apart %.3f", k.tile(), r.grow, r.apart)
		if !(r.grow > 0) || !(r.apart > 0) || r.k != k {
			t.Errorf("%s: ratios %+v", k.tile(), r)
		}
	}
	var runs []vk.KernelRun
	var vs []vectorRun
	for _, k := range fma16Forms() {
		v, err := fma16Run(d, smallOptions(), k)
		if err != nil {
			t.Fatal(err)
		}
		vs, runs = append(vs, v), append(runs, v.kernelRun())
	}
	outs, rates, err := d.RunAlternating(context.Background(), runs, vk.Timing{Samples: 9, SampleTime: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if len(outs) != len(runs) || len(rates) != len(runs) {
		t.Fatalf("%d outputs, %d rate lists for %d runs", len(outs), len(rates), len(runs))
	}
	for i, v := range vs {
		if _, err := checkWords(outs[i], v.inv, v.want); err != nil {
			t.Errorf("%s: %v", v.tile, err)
		}
		if len(rates[i]) != 9 || slices.ContainsFunc(rates[i], func(r float64) bool { return !(r > 0) }) {
			t.Errorf("%s: rates %v, want 9 positive", v.tile, rates[i])
		}
	}
	for i := range 3 {
		o := smallOptions()
		seen := 0
		o.tamper = func(_ string, out []byte) {
			if seen == i {
				out[len(out)/2+3] ^= 0x40
			}
			seen++
		}
		if _, err := guardRatios(context.Background(), d, o, fma16Forms()[0]); !errors.Is(err, vk.ErrCheckFailed) {
			t.Errorf("guard kernel %d corrupted: err = %v, want ErrCheckFailed", i, err)
		}
	}
}

// TestChooseForm: only a form that could be returned is guarded, fastest
// first; a form that fails its guard guardTries times is dropped and the next one
// guarded; a retried form that then runs slower than another form's first
// measurement does not end the search; none holding wraps ErrCheckFailed.
func TestChooseForm(t *testing.T) {
	forms := []fma16Kernel{{Unroll: 1}, {Unroll: 2}, {Unroll: 3}} // told apart by Unroll
	for _, tc := range []struct {
		name     string
		rates    []float64          // each form's first measurement
		again    map[uint32]float64 // a form's second measurement
		folds    map[uint32]int     // how many guards a form fails, from its first
		want     float64            // 0: ErrCheckFailed
		measured int
		guarded  []uint32
	}{
		{"fastest holds", []float64{2, 3, 1}, nil, nil, 3, 3, []uint32{2}},
		{"fastest folded", []float64{2, 3, 1}, map[uint32]float64{2: 3}, map[uint32]int{2: 3}, 2, 5, []uint32{2, 2, 2, 1}},
		{"fastest holds at its third guard", []float64{2, 3, 1}, map[uint32]float64{2: 3}, map[uint32]int{2: 2}, 3, 5, []uint32{2, 2, 2}},
		{"fastest slower when retried", []float64{2, 3, 1}, map[uint32]float64{2: 1.5}, map[uint32]int{2: 1}, 2, 4, []uint32{2, 2, 1}},
		{"faster when retried", []float64{2, 3, 1}, map[uint32]float64{2: 2.5}, map[uint32]int{2: 1}, 2.5, 4, []uint32{2, 2}},
		{"all folded", []float64{2, 3, 1}, map[uint32]float64{1: 2, 2: 3, 3: 1}, map[uint32]int{1: 3, 2: 3, 3: 3}, 0, 9, []uint32{2, 2, 2, 1, 1, 1, 3, 3, 3}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			runs := map[uint32]int{}
			fails := map[uint32]int{}
			var guarded []uint32
			measure := func(k fma16Kernel) (vk.Result, error) {
				rate := tc.rates[k.Unroll-1]
				if runs[k.Unroll] > 0 {
					rate = tc.again[k.Unroll]
				}
				runs[k.Unroll]++
				return vk.Result{Probe: vk.ProbeFMA16, Tile: fmt.Sprint(k.Unroll), OpsPerSecond: schema.Stat{Median: rate}}, nil
			}
			guard := func(k fma16Kernel) (string, error) {
				guarded = append(guarded, k.Unroll)
				if fails[k.Unroll] < tc.folds[k.Unroll] {
					fails[k.Unroll]++
					return fmt.Sprint("folded ", k.Unroll), nil
				}
				return "", nil
			}
			r, err := chooseForm(forms, measure, guard, time.Now)
			switch {
			case tc.want == 0 && !errors.Is(err, vk.ErrCheckFailed):
				t.Errorf("err = %v, want ErrCheckFailed", err)
			case tc.want != 0 && (err != nil || r.OpsPerSecond.Median != tc.want):
				t.Errorf("got %g, %v; want %g", r.OpsPerSecond.Median, err, tc.want)
			}
			n := 0
			for _, c := range runs {
				n += c
			}
			if n != tc.measured || !slices.Equal(guarded, tc.guarded) {
				t.Errorf("measured %d times, guarded %v; want %d, %v", n, guarded, tc.measured, tc.guarded)
			}
		})
	}
}

func logVector(t *testing.T, r vk.Result) {
	t.Helper()
	t.Logf("%s %v %s: %.3g Gop/s median (min %.3g, max %.3g, %d samples, %s, %d reps), %d outputs checked, tolerance %g",
		r.Probe, r.Problem, r.Tile, r.OpsPerSecond.Median/1e9, r.OpsPerSecond.Min/1e9, r.OpsPerSecond.Max/1e9,
		r.OpsPerSecond.Samples, r.Timing, r.Repeats, r.Check.Elements, r.Check.Tolerance)
}

// TestVectorSkipReasons takes the features away from an opened device and
// checks the reason each kernel gives; no kernel runs.
func TestVectorSkipReasons(t *testing.T) {
	d := vktest.Device(t)
	saved := d.Enabled
	defer func() { d.Enabled = saved }()
	d.Enabled.Float16, d.Enabled.IntDot = false, false
	_, err := RunFMA16(context.Background(), d, smallOptions())
	if !errors.Is(err, vk.ErrFeatureMissing) || !strings.Contains(err.Error(), "shaderFloat16") {
		t.Errorf("fp16 without shaderFloat16: %v", err)
	}
	_, err = RunDot4(context.Background(), d, smallOptions(), true)
	if vk.HasIntDot(d.Info) && (!errors.Is(err, vk.ErrFeatureMissing) || !strings.Contains(err.Error(), "shaderIntegerDotProduct")) {
		t.Errorf("dot4 without shaderIntegerDotProduct: %v", err)
	}
	info := d.Info
	d.Info.API, d.Info.Extensions = 1<<22|2<<12, slices.DeleteFunc(slices.Clone(info.Extensions), func(e string) bool { return e == vk.ExtIntDot })
	defer func() { d.Info = info }()
	_, err = RunDot4(context.Background(), d, smallOptions(), false)
	if !errors.Is(err, vk.ErrExtensionMissing) || !strings.Contains(err.Error(), vk.ExtIntDot) {
		t.Errorf("dot4 on a Vulkan 1.2 device without %s: %v", vk.ExtIntDot, err)
	}
}

// runVectorKernels runs every vector kernel: the results of those that ran
// and the skips of those the device cannot run.
func runVectorKernels(ctx context.Context, d *vk.Device, o Options) ([]vk.Result, []vk.Skip, error) {
	var res []vk.Result
	var skips []vk.Skip
	for _, k := range []struct {
		probe string
		run   func() (vk.Result, error)
	}{
		{vk.ProbeFMA64, func() (vk.Result, error) { return RunFMA64(ctx, d, o) }},
		{vk.ProbeFMA16, func() (vk.Result, error) { return RunFMA16(ctx, d, o) }},
		{vk.ProbeDot4I8, func() (vk.Result, error) { return RunDot4(ctx, d, o, true) }},
		{vk.ProbeDot4U8, func() (vk.Result, error) { return RunDot4(ctx, d, o, false) }},
	} {
		r, err := k.run()
		switch {
		case vk.IsSkip(err):
			skips = append(skips, vk.Skip{Probe: k.probe, Reason: err.Error()})
		case err != nil:
			return res, skips, err
		default:
			res = append(res, r)
		}
	}
	return res, skips, nil
}

// TestVectorKernels runs every vector kernel: each either passes its check
// or is skipped for a missing feature, never both, never neither.
func TestVectorKernels(t *testing.T) {
	d := vktest.Device(t)
	res, skips, err := runVectorKernels(context.Background(), d, smallOptions())
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, r := range res {
		logVector(t, r)
		if r.OpsPerSecond.Median <= 0 || r.Check.Elements == 0 || seen[r.Probe] {
			t.Errorf("bad result %+v", r)
		}
		seen[r.Probe] = true
	}
	for _, s := range skips {
		t.Logf("SKIP %s: %s", s.Probe, s.Reason)
		if seen[s.Probe] || s.Reason == "" {
			t.Errorf("bad skip %+v", s)
		}
		seen[s.Probe] = true
	}
	for _, p := range []string{vk.ProbeFMA64, vk.ProbeFMA16, vk.ProbeDot4I8, vk.ProbeDot4U8} {
		if !seen[p] {
			t.Errorf("%s neither measured nor skipped", p)
		}
	}
	checkVectorResults(t, d, res)
}

// checkVectorResults checks the types and sizes of the fp16 and dot4
// results, and that a device offering the features measured them.
func checkVectorResults(t *testing.T, d *vk.Device, res []vk.Result) {
	t.Helper()
	want := map[string]vk.Shape{
		vk.ProbeFMA16:  {M: 1, N: 1, K: 1, A: vk.Float16, B: vk.Float16, C: vk.Float16, Result: vk.Float16},
		vk.ProbeDot4I8: {M: 1, N: 1, K: 1, A: vk.Sint8, B: vk.Sint8, C: vk.Sint32, Result: vk.Sint32},
		vk.ProbeDot4U8: {M: 1, N: 1, K: 1, A: vk.Uint8, B: vk.Uint8, C: vk.Uint32, Result: vk.Uint32},
	}
	offered := map[string]bool{vk.ProbeFMA16: d.Info.Features.Float16, vk.ProbeDot4I8: d.Info.Features.IntDot, vk.ProbeDot4U8: d.Info.Features.IntDot}
	for _, r := range res {
		s, ok := want[r.Probe]
		if !ok {
			continue
		}
		delete(offered, r.Probe)
		if r.Shape != s || r.Check.Elements != int(smallOptions().FMAInvocations) || r.OpsPerSecond.Samples < vk.MinSamples || r.Check.Tolerance != 0 {
			t.Errorf("%s: unexpected result %+v", r.Probe, r)
		}
	}
	for p, on := range offered {
		if on {
			t.Errorf("%s: the device offers the feature, but the kernel did not run", p)
		}
	}
}

// TestHeapUsage allocates 64 MiB of device-local memory and expects the
// heap's usage to rise by at least that much; without VK_EXT_memory_budget
// (lavapipe) it expects that precise reason.
func TestHeapUsage(t *testing.T) {
	d := vktest.Device(t)
	before, budget, err := vk.HeapUsage(d.Info.Index)
	if !d.Info.HasExtension(vk.ExtMemoryBudget) {
		if !errors.Is(err, vk.ErrExtensionMissing) || !strings.Contains(err.Error(), vk.ExtMemoryBudget) {
			t.Fatalf("HeapUsage without %s: err = %v", vk.ExtMemoryBudget, err)
		}
		t.Skipf("%s lacks %s: %v", d.Info.Name, vk.ExtMemoryBudget, err)
	}
	if err != nil {
		t.Fatal(err)
	}
	const size = 64 << 20
	buf, err := d.NewBuffer(size, false)
	if err != nil {
		t.Fatal(err)
	}
	defer buf.Release()
	after, _, err := vk.HeapUsage(d.Info.Index)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("usage %d → %d bytes, budget %d", before, after, budget)
	if after < before+size {
		t.Errorf("usage rose by %d bytes after a %d-byte allocation", int64(after)-int64(before), size)
	}
}

// TestVectorNotMatrixEngine: no vector kernel claims the matrix engine (the
// cooperative-matrix half of this rule is coopmat's TestMatrixEngineHonest).
func TestVectorNotMatrixEngine(t *testing.T) {
	d := vktest.Device(t)
	res, _, err := runVectorKernels(context.Background(), d, smallOptions())
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range res {
		if r.MatrixEngine {
			t.Errorf("the vector kernel %s says matrix_engine=true: %+v", r.Probe, r)
		}
	}
}

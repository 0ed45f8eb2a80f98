package alu

import (
	"cmp"
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/everycycle/appraise/coopmat/vk"
)

// Operations counted per kernel step, the way peers count them (mixbench,
// vendor data sheets): an FMA is 2 operations per lane, a 4-wide 8-bit dot
// product accumulated into 32 bits is 8.
const (
	opsPerFMA  = 2
	opsPerDot4 = 8
)

// vectorRun is one vector-ALU kernel ready to measure: its module, inputs,
// size, operation count and exact per-invocation reference.
type vectorRun struct {
	probe   string
	words   []uint32
	inputs  [][]byte
	inv     uint32 // invocations per dispatch, a multiple of local
	local   uint32
	ops     float64 // operations per invocation
	want    func(gid uint32) uint32
	shape   vk.Shape
	problem vk.Problem
	tile    string
}

// vectorSize is the invocations (a multiple of local) and per-chain steps a
// vector kernel runs per dispatch, from Options (defaults 2^20 and 4096).
func vectorSize(o Options, local uint32) (inv, steps uint32) {
	inv, steps = o.FMAInvocations, o.FMASteps
	if inv == 0 {
		inv = 1 << 20
	}
	if steps == 0 {
		steps = 4096
	}
	return max(inv/local, 1) * local, steps
}

// RunFMA16 measures fp16 FMA throughput on packed vectors of 16-bit floats.
// How a driver turns vector half-precision FMAs into packed instructions
// differs with how they are written, so it decides between the forms of
// fma16Forms by the rule of chooseForm: each is measured and checked
// within formBudget, the fastest that holds is kept, and Result.Tile names
// it with the others and what became of them. A form holds when it runs
// no more than foldLimit faster per operation with twice the work per
// dispatch, nor with four times the unroll (twice in a row): one that does
// was not run as written (a compiler folded the chain or collapsed its
// unrolled blocks, which the closed-form check cannot see, since folding
// keeps the result) and is dropped. When every form is dropped the error
// wraps ErrCheckFailed. Without shaderFloat16 (VK_KHR_shader_float16_int8
// or Vulkan 1.2) it returns an error wrapping ErrFeatureMissing.
// Options.FMAInvocations and FMASteps (FMAs per chain lane, capped where
// fp16 stays exact) size each dispatch.
func RunFMA16(ctx context.Context, d *vk.Device, o Options) (vk.Result, error) {
	if !d.Enabled.Float16 {
		why := "shaderFloat16"
		if !d.Info.Structs[vk.STypeFloat16Int8] {
			why += " (neither Vulkan 1.2 nor " + vk.ExtFloat16Int8 + ")"
		}
		return vk.Result{}, fmt.Errorf("%s: %s: %w", vk.ProbeFMA16, why, vk.ErrFeatureMissing)
	}
	seen := map[fp16Form]foldRuns{}
	return chooseForm(fma16Forms(),
		func(k fma16Kernel) (vk.Result, error) {
			o.Progressf("%s: %s", vk.ProbeFMA16, k.tile())
			return runFMA16(ctx, d, o, k)
		},
		func(k fma16Kernel, r vk.Result) (string, error) {
			o.Progressf("%s: %s, at half the pairs and a quarter of the unroll", vk.ProbeFMA16, k.tile())
			g, err := guardRuns(ctx, d, o, k, r)
			if err != nil {
				return "", err
			}
			g = seen[k.Form].faster(g)
			seen[k.Form] = g
			return g.folded(), nil
		}, time.Now)
}

// guardTries is how many times chooseForm measures and guards a form
// before it drops it as folded.
const guardTries = 3

// formBudget is the time the fp16 rule may take on the host's clock:
// measuring the forms and guarding the one kept.
const formBudget = 2 * time.Second

// chooseForm is the fp16 rule. It measures forms[0], then each further
// form while the budget still holds that form's run and the two guard
// runs of whichever is kept, each predicted to take as long as the
// longest run so far (now is the host's clock). The fastest is put to
// guard, which says why a form does not hold ("" when it does). A form
// that fails is measured and guarded again, up to guardTries times in
// all, before it is dropped (a busy host can slow any run of a software
// device; RunFMA16's guard judges the fastest of each run it has seen);
// then the next fastest is guarded, while one measured faster than the
// best that held remains. Every form returned held; one never guarded
// could not have been returned. The result's Tile names the kept form
// and, in brackets, each other form: "over" it when it ran slower,
// "folded" when it was dropped, "not timed" when the budget left it out.
// When none holds, the error wraps ErrCheckFailed.
func chooseForm(forms []fma16Kernel, measure func(fma16Kernel) (vk.Result, error), guard func(fma16Kernel, vk.Result) (string, error), now func() time.Time) (vk.Result, error) {
	first, err := measureForms(forms, measure, now)
	if err != nil {
		return vk.Result{}, err
	}
	order := make([]int, len(first))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int {
		return cmp.Compare(first[b].OpsPerSecond.Median, first[a].OpsPerSecond.Median)
	})
	fates := make([]string, len(forms))
	for i := range fates {
		fates[i] = "not timed"
		if i < len(first) {
			fates[i] = "over"
		}
	}
	kept := -1
	var best vk.Result
	var folded []string
	for _, i := range order {
		if kept >= 0 && first[i].OpsPerSecond.Median <= best.OpsPerSecond.Median {
			break
		}
		r := first[i]
		why, err := guard(forms[i], r)
		for try := 1; try < guardTries && err == nil && why != ""; try++ {
			if r, err = measure(forms[i]); err == nil {
				why, err = guard(forms[i], r)
			}
		}
		if err != nil {
			return vk.Result{}, err
		}
		if why != "" {
			folded, fates[i] = append(folded, why), "folded"
			continue
		}
		if r.OpsPerSecond.Median > best.OpsPerSecond.Median {
			best, kept = r, i
		}
	}
	if kept < 0 {
		return vk.Result{}, fmt.Errorf("%s: no form's rate held when its work or unroll changed (%s): %w", vk.ProbeFMA16, strings.Join(folded, "; "), vk.ErrCheckFailed)
	}
	best.Tile = formsName(forms, kept, fates)
	return best, nil
}

// measureForms measures forms[0], then each further form while
// formBudget, counted from the first, holds its run and two more, each
// predicted to take as long as the longest run so far: the first
// measurement of each form timed.
func measureForms(forms []fma16Kernel, measure func(fma16Kernel) (vk.Result, error), now func() time.Time) ([]vk.Result, error) {
	start := now()
	var longest time.Duration
	var out []vk.Result
	for i, k := range forms {
		t0 := now()
		if i > 0 && t0.Sub(start)+3*longest > formBudget {
			break
		}
		r, err := measure(k)
		if err != nil {
			return nil, err
		}
		longest = max(longest, now().Sub(t0))
		out = append(out, r)
	}
	return out, nil
}

// formsName names the kept form of forms (which share their shape) with
// each other form and its fate, e.g. "fma-loaded (over fma) local=256
// chains=16 lanes=2 unroll=8".
func formsName(forms []fma16Kernel, kept int, fates []string) string {
	var others []string
	for i, k := range forms {
		switch {
		case i == kept:
		case fates[i] == "over":
			others = append(others, "over "+k.Form.String())
		default:
			others = append(others, k.Form.String()+" "+fates[i])
		}
	}
	name := forms[kept].Form.String()
	if len(others) > 0 {
		name += " (" + strings.Join(others, ", ") + ")"
	}
	return name + strings.TrimPrefix(forms[kept].tile(), forms[kept].Form.String())
}

// foldRuns are the three runs a form's fold guard compares: the form as
// measured, with half the pairs and with a quarter of the unroll.
type foldRuns struct {
	k                 fma16Kernel
	full, half, short vk.Result
}

// guardRuns runs k, measured at r, with half the pairs and with a quarter
// of the unroll.
func guardRuns(ctx context.Context, d *vk.Device, o Options, k fma16Kernel, r vk.Result) (foldRuns, error) {
	half := o
	_, steps := vectorSize(o, k.Local)
	half.FMASteps = max(min(steps, 2*fp16MaxPairs)/2, 2*k.Unroll)
	h, err := runFMA16(ctx, d, half, k)
	if err != nil {
		return foldRuns{}, err
	}
	u, err := runFMA16(ctx, d, o, k.quarterUnrolled())
	if err != nil {
		return foldRuns{}, err
	}
	return foldRuns{k: k, full: r, half: h, short: u}, nil
}

// quarterUnrolled is k with a quarter of its unroll (at least 1): the
// fold guard's short-unroll run.
func (k fma16Kernel) quarterUnrolled() fma16Kernel {
	k.Unroll = max(k.Unroll/4, 1)
	return k
}

// faster is f with each run replaced by g's where g's ran faster (an empty
// f takes g whole). On a shared host, load only ever slows a run of a
// software device, and it may slow one run of a guard and not the next:
// the fastest of each seen is the nearest to its rate on an idle host,
// while a fold, a property of the compiled kernel, shows in every run.
func (f foldRuns) faster(g foldRuns) foldRuns {
	pick := func(a, b vk.Result) vk.Result {
		if b.OpsPerSecond.Median > a.OpsPerSecond.Median {
			return b
		}
		return a
	}
	return foldRuns{k: g.k, full: pick(f.full, g.full), half: pick(f.half, g.half), short: pick(f.short, g.short)}
}

// folded says why f's form looks folded ("" when it does not): it ran
// more than foldLimit faster per operation with twice the pairs, or with
// four times the unroll.
func (f foldRuns) folded() string {
	if grows(f.full, f.half, f.k) || apart(f.full, f.short) {
		return fmt.Sprintf("%s: %.3g op/s; %.3g at half the pairs; %.3g unrolled %d times",
			f.full.Tile, f.full.OpsPerSecond.Median, f.half.OpsPerSecond.Median, f.short.OpsPerSecond.Median, f.k.quarterUnrolled().Unroll)
	}
	return ""
}

// foldLimit is how much faster per operation a kernel may run when its
// work per dispatch doubles before it counts as folded: fixed costs make
// the larger dispatch a little faster, never twice as fast.
const foldLimit = 1.5

// grows reports whether full, run with twice (or more) the pairs of half,
// ran more than foldLimit faster per operation: the sign that the pairs
// were not all executed. Equal work (a size too small to halve) says
// nothing.
func grows(full, half vk.Result, k fma16Kernel) bool {
	if full.Problem.K <= half.Problem.K || half.OpsPerSecond.Median <= 0 {
		return false
	}
	return full.OpsPerSecond.Median > foldLimit*half.OpsPerSecond.Median
}

// apart reports whether more, the run unrolled further, ran more than
// foldLimit faster per operation than less, the same form unrolled less:
// a compiler that collapsed each unrolled block (reassociating it into
// fewer operations) gains in proportion to the unroll, while loop overhead
// alone gains far less (docs/performance.md).
func apart(more, less vk.Result) bool {
	x, y := more.OpsPerSecond.Median, less.OpsPerSecond.Median
	return y > 0 && x > foldLimit*y
}

// fma16Forms are the fp16 rule's candidates, in the order it measures
// them, one shape of 32 values per invocation in vec2 lanes: operands
// loaded from a buffer, which a driver may pack into half2 FMAs (twice the
// fp32 rate), first; then constant ones, whose constants 2 and ½ may keep a
// driver from packing while another prefers them (inline operands). The
// other forms (vec4 lanes, multiply-and-add) are measured only by the
// exploration harness (bench/, -tags explore): where they were measured
// none ran faster than these, and a multiply-and-add form with constant
// operands was folded by a driver into its closed form
// (docs/performance.md).
func fma16Forms() []fma16Kernel {
	return []fma16Kernel{
		{Chains: 16, Lanes: 2, Unroll: 8, Local: 256, Form: fp16FMALoaded},
		{Chains: 16, Lanes: 2, Unroll: 8, Local: 256, Form: fp16FMA},
	}
}

// tile names k's form and shape, as Result.Tile does.
func (k fma16Kernel) tile() string {
	return fmt.Sprintf("%s local=%d chains=%d lanes=%d unroll=%d", k.Form, k.Local, k.Chains, k.Lanes, k.Unroll)
}

// runFMA16 sizes k from o and measures it.
func runFMA16(ctx context.Context, d *vk.Device, o Options, k fma16Kernel) (vk.Result, error) {
	inv, steps := vectorSize(o, k.Local)
	k.Iters = max(min(steps/2, fp16MaxPairs)/k.Unroll, 1)
	if !k.exact() {
		return vk.Result{}, fmt.Errorf("%s: %d pairs per chain would leave fp16's exact range", vk.ProbeFMA16, k.pairs())
	}
	var table [16]uint32
	for i := range table {
		table[i] = k.reference(uint32(i))
	}
	var inputs [][]byte
	if k.Form.loaded() {
		inputs = [][]byte{k.input()}
	}
	return runVector(ctx, d, vectorRun{
		probe: vk.ProbeFMA16, words: k.build(vk.SpirvVersion(d.Info.API)), inputs: inputs, inv: inv, local: k.Local,
		ops: k.ops(), want: func(gid uint32) uint32 { return table[gid%16] },
		shape:   vk.Shape{M: 1, N: 1, K: 1, A: vk.Float16, B: vk.Float16, C: vk.Float16, Result: vk.Float16},
		problem: vk.Problem{M: inv, N: k.Chains * k.Lanes, K: 2 * k.pairs()},
		tile:    k.tile(),
	}, o)
}

// RunDot4 measures packed 4×8-bit integer dot products accumulated in 32
// bits (OpSDot for signed, OpUDot otherwise, then OpIAdd).
// Without VK_KHR_shader_integer_dot_product (or Vulkan 1.3) it returns an
// error wrapping ErrExtensionMissing; without its shaderIntegerDotProduct
// feature one wrapping ErrFeatureMissing. Options.FMAInvocations and
// FMASteps (dot products per chain, capped by dotMaxRounds) size each
// dispatch.
func RunDot4(ctx context.Context, d *vk.Device, o Options, signed bool) (vk.Result, error) {
	probe, shape := vk.ProbeDot4U8, vk.Shape{M: 1, N: 1, K: 1, A: vk.Uint8, B: vk.Uint8, C: vk.Uint32, Result: vk.Uint32}
	if signed {
		probe, shape = vk.ProbeDot4I8, vk.Shape{M: 1, N: 1, K: 1, A: vk.Sint8, B: vk.Sint8, C: vk.Sint32, Result: vk.Sint32}
	}
	switch {
	case !vk.HasIntDot(d.Info):
		return vk.Result{}, fmt.Errorf("%s: %s (device API %s): %w", probe, vk.ExtIntDot, d.Info.APIVersion, vk.ErrExtensionMissing)
	case !d.Enabled.IntDot:
		return vk.Result{}, fmt.Errorf("%s: shaderIntegerDotProduct: %w", probe, vk.ErrFeatureMissing)
	}
	k := dot4Kernel{Signed: signed, Chains: 16, Unroll: 4, Local: 256}
	inv, steps := vectorSize(o, k.Local)
	k.Iters = max(min(steps/2, dotMaxRounds)/k.Unroll, 1)
	table := k.table()
	return runVector(ctx, d, vectorRun{
		probe: probe, words: k.build(vk.SpirvVersion(d.Info.API)), inputs: [][]byte{k.input()},
		inv: inv, local: k.Local, ops: k.ops(), want: func(gid uint32) uint32 { return table[gid%dotClasses] },
		shape: shape, problem: vk.Problem{M: inv, N: k.Chains, K: 2 * k.rounds()},
		tile: fmt.Sprintf("local=%d chains=%d unroll=%d", k.Local, k.Chains, k.Unroll),
	}, o)
}

// runVector measures v and checks every invocation's output word exactly.
func runVector(ctx context.Context, d *vk.Device, v vectorRun, o Options) (vk.Result, error) {
	out, m, err := d.RunKernel(ctx, v.words, v.inputs, vk.KernelSetup{}, uint64(v.inv)*4,
		[3]uint32{v.inv / v.local, 1, 1}, v.ops*float64(v.inv), o.Timing)
	if err != nil {
		return vk.Result{}, fmt.Errorf("%s: %w", v.probe, err)
	}
	if o.tamper != nil {
		o.tamper(v.probe, out)
	}
	c, err := checkWords(out, v.inv, v.want)
	if err != nil {
		return vk.Result{}, fmt.Errorf("%s: %w", v.probe, err)
	}
	return vk.Result{
		Probe: v.probe, Shape: v.shape, Problem: v.problem, OpsPerSecond: m.Rate, Timing: m.Method,
		Repeats: m.Repeats, Tile: v.tile, Check: c,
	}, nil
}

// checkWords compares every invocation's output word with want, exactly.
func checkWords(out []byte, inv uint32, want func(gid uint32) uint32) (vk.Check, error) {
	for gid := range inv {
		if got, w := binary.LittleEndian.Uint32(out[4*gid:]), want(gid); got != w {
			return vk.Check{Elements: int(gid) + 1, Worst: math.Inf(1)}, fmt.Errorf(
				"invocation %d output %#08x, want %#08x (exact): %w", gid, got, w, vk.ErrCheckFailed)
		}
	}
	return vk.Check{Elements: int(inv)}, nil
}

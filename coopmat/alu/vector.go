package alu

import (
	"cmp"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/everycycle/appraise/coopmat/vk"
	"github.com/everycycle/appraise/internal/measure/stats"
)

// Operations per lane of one kernel step, as peers count them.
const (
	opsPerFMA  = 2
	opsPerDot4 = 8
)

// vectorRun is a vector-ALU kernel and its exact reference, want.
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

// vectorSize is a dispatch's invocations (a multiple of local) and steps
// per chain: FMAInvocations and FMASteps, defaults 2^20 and 4096.
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

// RunFMA16 measures fp16 FMA throughput on packed vectors: the fastest of
// fma16Forms that holds its fold guards (chooseForm), Result.Tile naming
// the others and their fate. When no form holds the error wraps
// ErrCheckFailed; without shaderFloat16, ErrFeatureMissing.
func RunFMA16(ctx context.Context, d *vk.Device, o Options) (vk.Result, error) {
	if !d.Enabled.Float16 {
		why := "shaderFloat16"
		if !d.Info.Structs[vk.STypeFloat16Int8] {
			why += " (neither Vulkan 1.2 nor " + vk.ExtFloat16Int8 + ")"
		}
		return vk.Result{}, fmt.Errorf("%s: %s: %w", vk.ProbeFMA16, why, vk.ErrFeatureMissing)
	}
	seen := map[fp16Form]foldRatios{}
	return chooseForm(fma16Forms(),
		func(k fma16Kernel) (vk.Result, error) {
			o.Progressf("%s: %s", vk.ProbeFMA16, k.tile())
			return runFMA16(ctx, d, o, k)
		},
		func(k fma16Kernel) (string, error) {
			o.Progressf("%s: %s in turn with half the pairs and a quarter of the unroll", vk.ProbeFMA16, k.tile())
			g, err := guardRatios(ctx, d, o, k)
			if err != nil {
				return "", err
			}
			if s, ok := seen[k.Form]; ok {
				g = s.lower(g)
			}
			seen[k.Form] = g
			return g.folded(), nil
		}, time.Now)
}

// guardTries is how often chooseForm guards a form before dropping it.
const guardTries = 3

// formBudget is the host time the fp16 rule may take.
const formBudget = 2 * time.Second

// chooseForm is the fp16 rule: it measures the forms the budget allows
// (measureForms), then guards the fastest, which says why a form does not
// hold ("" when it does); a form that fails guardTries times is dropped and
// the next fastest guarded. Only a form that held is returned, its Tile
// naming the others "over", "folded" or "not timed"; when none holds the
// error wraps ErrCheckFailed.
func chooseForm(forms []fma16Kernel, measure func(fma16Kernel) (vk.Result, error), guard func(fma16Kernel) (string, error), now func() time.Time) (vk.Result, error) {
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
		why, err := guard(forms[i])
		for try := 1; try < guardTries && err == nil && why != ""; try++ {
			if r, err = measure(forms[i]); err == nil {
				why, err = guard(forms[i])
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

// measureForms measures forms[0], then each further form while formBudget
// holds its run and two more, each predicted as long as the longest so far.
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

// formsName is e.g. "fma-loaded (over fma) local=256 chains=16 lanes=2 unroll=8".
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

// foldRatios are how many times faster per operation a form ran than with
// half the pairs (grow; 0 where its size leaves no fewer pairs) and than
// with a quarter of the unroll (apart), medians over rounds of the three
// run in turn.
type foldRatios struct {
	k           fma16Kernel
	grow, apart float64
}

// guardRatios runs k, k with half the pairs and k with a quarter of the
// unroll in turn (RunAlternating), checks each output, and returns their
// foldRatios.
func guardRatios(ctx context.Context, d *vk.Device, o Options, k fma16Kernel) (foldRatios, error) {
	half := o
	_, steps := vectorSize(o, k.Local)
	half.FMASteps = max(min(steps, 2*fp16MaxPairs)/2, 2*k.Unroll)
	full, err1 := fma16Run(d, o, k)
	h, err2 := fma16Run(d, half, k)
	short, err3 := fma16Run(d, o, k.quarterUnrolled())
	if err := errors.Join(err1, err2, err3); err != nil {
		return foldRatios{}, err
	}
	vs := []vectorRun{full, h, short}
	runs := []vk.KernelRun{full.kernelRun(), h.kernelRun(), short.kernelRun()}
	tm := o.Timing
	tm.Samples, tm.SampleTime = max(tm.Samples, guardRounds), guardSample
	outs, rates, err := d.RunAlternating(ctx, runs, tm)
	if err != nil {
		return foldRatios{}, fmt.Errorf("%s: %w", vk.ProbeFMA16, err)
	}
	for i, v := range vs {
		if o.tamper != nil {
			o.tamper(v.probe, outs[i])
		}
		if _, err := checkWords(outs[i], v.inv, v.want); err != nil {
			return foldRatios{}, fmt.Errorf("%s: %s: %w", v.probe, v.tile, err)
		}
	}
	r := foldRatios{k: k, apart: medianRatio(rates[0], rates[2])}
	if vs[0].problem.K > vs[1].problem.K {
		r.grow = medianRatio(rates[0], rates[1])
	}
	return r, nil
}

// medianRatio is the median over rounds of a[i]/b[i] (rates, all positive).
func medianRatio(a, b []float64) float64 {
	r := make([]float64, len(a))
	for i := range a {
		r[i] = a[i] / b[i]
	}
	return stats.Median(r)
}

func (k fma16Kernel) quarterUnrolled() fma16Kernel {
	k.Unroll = max(k.Unroll/4, 1)
	return k
}

// lower keeps the lower of f's and g's each ratio: load on the host moves a
// round's ratio either way, a fold raises it in every round.
func (f foldRatios) lower(g foldRatios) foldRatios {
	return foldRatios{k: g.k, grow: min(f.grow, g.grow), apart: min(f.apart, g.apart)}
}

// folded says why f's form looks folded ("" when it does not).
func (f foldRatios) folded() string {
	if f.grow > foldLimit || f.apart > foldLimit {
		return fmt.Sprintf("%s: %.2f× the rate with half the pairs, %.2f× unrolled %d times",
			f.k.tile(), f.grow, f.apart, f.k.quarterUnrolled().Unroll)
	}
	return ""
}

// foldLimit is how much faster per operation a kernel may run with more
// work or more unroll before it counts as folded, judged over at least
// guardRounds rounds of guardSample samples.
const (
	foldLimit   = 1.5
	guardRounds = 15
	guardSample = 5 * time.Millisecond
)

// fma16Forms are the fp16 rule's candidates in the order it measures them:
// loaded operands, then constant ones, in vec2 lanes.
func fma16Forms() []fma16Kernel {
	return []fma16Kernel{
		{Chains: 16, Lanes: 2, Unroll: 8, Local: 256, Form: fp16FMALoaded},
		{Chains: 16, Lanes: 2, Unroll: 8, Local: 256, Form: fp16FMA},
	}
}

func (k fma16Kernel) tile() string {
	return fmt.Sprintf("%s local=%d chains=%d lanes=%d unroll=%d", k.Form, k.Local, k.Chains, k.Lanes, k.Unroll)
}

func runFMA16(ctx context.Context, d *vk.Device, o Options, k fma16Kernel) (vk.Result, error) {
	v, err := fma16Run(d, o, k)
	if err != nil {
		return vk.Result{}, err
	}
	return runVector(ctx, d, v, o)
}

// fma16Run is k sized by o.
func fma16Run(d *vk.Device, o Options, k fma16Kernel) (vectorRun, error) {
	inv, steps := vectorSize(o, k.Local)
	k.Iters = max(min(steps/2, fp16MaxPairs)/k.Unroll, 1)
	if !k.exact() {
		return vectorRun{}, fmt.Errorf("%s: %d pairs per chain would leave fp16's exact range", vk.ProbeFMA16, k.pairs())
	}
	var table [16]uint32
	for i := range table {
		table[i] = k.reference(uint32(i))
	}
	var inputs [][]byte
	if k.Form.loaded() {
		inputs = [][]byte{k.input()}
	}
	return vectorRun{
		probe: vk.ProbeFMA16, words: k.build(vk.SpirvVersion(d.Info.API)), inputs: inputs, inv: inv, local: k.Local,
		ops: k.ops(), want: func(gid uint32) uint32 { return table[gid%16] },
		shape:   vk.Shape{M: 1, N: 1, K: 1, A: vk.Float16, B: vk.Float16, C: vk.Float16, Result: vk.Float16},
		problem: vk.Problem{M: inv, N: k.Chains * k.Lanes, K: 2 * k.pairs()},
		tile:    k.tile(),
	}, nil
}

// RunDot4 measures packed 4×8-bit dot products accumulated in 32 bits,
// signed or not. Without VK_KHR_shader_integer_dot_product the error wraps
// ErrExtensionMissing; without its feature, ErrFeatureMissing.
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

// kernelRun is v for vk's runners.
func (v vectorRun) kernelRun() vk.KernelRun {
	return vk.KernelRun{Words: v.words, Inputs: v.inputs, OutBytes: uint64(v.inv) * 4,
		Groups: [3]uint32{v.inv / v.local, 1, 1}, Ops: v.ops * float64(v.inv)}
}

func runVector(ctx context.Context, d *vk.Device, v vectorRun, o Options) (vk.Result, error) {
	r := v.kernelRun()
	out, m, err := d.RunKernel(ctx, r.Words, r.Inputs, r.Setup, r.OutBytes, r.Groups, r.Ops, o.Timing)
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

func checkWords(out []byte, inv uint32, want func(gid uint32) uint32) (vk.Check, error) {
	for gid := range inv {
		if got, w := binary.LittleEndian.Uint32(out[4*gid:]), want(gid); got != w {
			return vk.Check{Elements: int(gid) + 1, Worst: math.Inf(1)}, fmt.Errorf(
				"invocation %d output %#08x, want %#08x (exact): %w", gid, got, w, vk.ErrCheckFailed)
		}
	}
	return vk.Check{Elements: int(inv)}, nil
}

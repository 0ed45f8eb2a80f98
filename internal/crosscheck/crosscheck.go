// Package crosscheck runs standard tools (BabelStream, mixbench) on the
// device an appraisal measured and compares their figures with ours. A
// disagreement beyond the tolerance means one of the probes is wrong, and
// the appraisal then refuses to sign.
//
// Start with Preflight, which finds the tools and checks that they start
// before any probe runs; then Probe (probe.go) per device, which runs
// them (Run) and names the checks that failed (Disagreements).
package crosscheck

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"time"

	"github.com/everycycle/appraise/babelstream"
	"github.com/everycycle/appraise/internal/crosscheck/toolrun"
	"github.com/everycycle/appraise/internal/platform/pci"
	"github.com/everycycle/appraise/internal/render/figures"
	"github.com/everycycle/appraise/mixbench"
	"github.com/everycycle/appraise/schema"
)

// DefaultTolerance is the largest relative disagreement accepted when the
// operator sets none.
const DefaultTolerance = 0.05

// ErrDisagree is wrapped when a cross-check is outside its tolerance.
var ErrDisagree = errors.New("cross-check disagrees")

// Config says which tools to run and how strictly to compare.
type Config struct {
	// BabelStream and Mixbench are the tools' binaries: a path, or a name
	// looked up on PATH; empty means the vendor's builds on PATH
	// (cuda-stream or hip-stream or ocl-stream, mixbench-cuda or
	// mixbench-hip or mixbench-ocl; see Preflight).
	BabelStream, Mixbench string
	// Tolerance is the largest accepted |ours-theirs|/theirs.
	Tolerance float64
	// Timeout bounds each tool's run.
	Timeout time.Duration
	// Required is set when the operator asked for the cross-check
	// (--cross-check or a tool's flag): a tool that is missing or does not
	// start then fails the run before probing, where otherwise the card
	// records why no cross-check ran.
	Required bool
}

// Target is the device to check.
type Target struct {
	// BusAddress is the device's PCI address.
	BusAddress string
	// VendorID is its PCI vendor id, lowercase hex.
	VendorID string
	// Visible are the PCI addresses of every GPU of the same vendor in
	// the box, which the tools may enumerate, to find the tools' index of
	// ours.
	Visible []string
}

// Run runs both tools on t and compares their figures with v's. When a
// pair disagrees, the tool behind it runs once more and each of its
// figures is the better of its two runs: both tools already report the
// best of their own repetitions, and a floor measured at an unlucky clock
// (mixbench times each row once, with no warm-up of its own) is not the
// device's. It fails when a tool cannot run, when the tools' index of t
// cannot be told, or when a tool prints what its parser rejects; a figure
// that v lacks is not compared.
func Run(ctx context.Context, c Config, tools Tools, t Target, v schema.CapabilityVector) ([]schema.CrossCheck, error) {
	tol := c.Tolerance
	if tol <= 0 {
		tol = DefaultTolerance
	}
	bsIdx, err := deviceIndex(tools.BabelStream, tools, t)
	if err != nil {
		return nil, err
	}
	mbIdx, err := deviceIndex(tools.Mixbench, tools, t)
	if err != nil {
		return nil, err
	}
	bsArgs := append([]string{"--csv"}, babelstream.DeviceArgs(bsIdx)...)
	if n := arrayElements(v); n > 0 {
		bsArgs = append(bsArgs, "-s", fmt.Sprint(n))
	}
	runBS := func() (*babelstream.Result, error) {
		r, err := runBabelStream(ctx, tools.BabelStream, bsArgs, timeout(c))
		return r, wrap(err)
	}
	runMB := func() (*mixbench.Result, error) {
		r, err := runMixbench(ctx, tools.Mixbench, mbIdx, timeout(c))
		return r, wrap(err)
	}
	bs, err := runBS()
	if err != nil {
		return nil, err
	}
	mb, err := runMB()
	if err != nil {
		return nil, err
	}
	ps := pairs(bs, mb, tol)
	out := checks(ps, byName(v), tol)
	again := map[string]bool{}
	for _, d := range Disagreements(out) {
		again[d.Tool] = true
	}
	if again["babelstream"] {
		if bs, err = runBS(); err != nil {
			return nil, err
		}
	}
	if again["mixbench"] {
		if mb, err = runMB(); err != nil {
			return nil, err
		}
	}
	if len(again) == 0 {
		return out, nil
	}
	return checks(betterOf(ps, pairs(bs, mb, tol)), byName(v), tol), nil
}

// checks compares every pair whose figure ours has.
func checks(ps []pair, ours map[string]float64, tol float64) []schema.CrossCheck {
	var out []schema.CrossCheck
	for _, p := range ps {
		if mine, ok := ours[p.figure]; ok && p.theirs > 0 {
			out = append(out, compare(p, mine, tol))
		}
	}
	return out
}

// betterOf pairs up two runs' pairs by figure and keeps, for each, the
// one whose tool figure is higher (its ceiling comes with it, being
// derived from the same run); a pair only one run has is kept.
func betterOf(first, second []pair) []pair {
	out := append([]pair(nil), first...)
	for _, p := range second {
		i := slices.IndexFunc(out, func(q pair) bool { return q.tool == p.tool && q.figure == p.figure })
		switch {
		case i < 0:
			out = append(out, p)
		case p.theirs > out[i].theirs:
			out[i] = p
		}
	}
	return out
}

// deviceIndex is the index under which the tool bin sees t. A CUDA build
// numbers devices in PCI bus order (toolEnv), so the index follows from
// the bus address among the vendor's GPUs. A HIP or OpenCL build numbers
// them its own way; its index 0 is t only when t is the only GPU of its
// vendor in the box and BabelStream lists exactly one device.
func deviceIndex(bin string, tools Tools, t Target) (int, error) {
	if cuda(bin) {
		if t.VendorID != "10de" {
			return 0, fmt.Errorf("cross-check: %s is a CUDA build; device vendor %s is not NVIDIA", bin, t.VendorID)
		}
		if t.BusAddress == "" {
			return 0, errors.New("cross-check: the device's bus address is unknown, so the tools' device index cannot be found")
		}
		idx, err := pci.DeviceIndexByBusID(t.BusAddress, t.Visible)
		if err != nil {
			return 0, fmt.Errorf("cross-check: %w", err)
		}
		return idx, nil
	}
	if len(t.Visible) == 1 && len(tools.Devices) == 1 {
		return 0, nil
	}
	return 0, fmt.Errorf("cross-check: %s numbers devices in its own order, and with %d GPUs of vendor %s in the box and %d devices listed by BabelStream, which one is this cannot be told",
		filepath.Base(bin), len(t.Visible), t.VendorID, len(tools.Devices))
}

// pair is one of our figures, the tool figure it is held against, the
// rule (schema.RuleWithin or schema.RuleAtLeast) and, for at-least, the
// ceiling of ours ÷ theirs with why (ceiling.go).
type pair struct {
	tool, version, toolFigure, figure string
	theirs                            float64
	rule                              string
	maxRatio                          float64
	ceilingReason                     string
}

// pairs lists what each tool measures that we measure too, and how the
// two must agree:
//
//   - BabelStream Triad against our triad and Dot against our read (same
//     array size; both stream the same arrays in the same pattern and
//     saturate memory): within the tolerance either way. These hold the
//     timing of our bandwidth probes to a standard tool's.
//   - BabelStream Copy against our copy: at least, up to the best rate of
//     BabelStream's own kernels. Its copy keeps two streams of one double
//     per thread in flight, which on a card with a wide memory system
//     falls short of the card's copy rate.
//   - mixbench's peak per precision against our FMA and multiply-add
//     figures: at least, up to what its kernel's structure explains
//     (ceiling.go). Its peak is the best point of a sweep of a mixed
//     load-and-compute kernel, what that kernel reaches, not the ALUs'
//     limit that ours, a pure many-chain kernel, measures.
//
// "At least" refuses a figure of ours below the tool's, the sign of a
// probe that under-reports, and one above the ceiling, the sign of one
// that over-reports (a folded kernel, an operation counted twice).
func pairs(bs *babelstream.Result, mb *mixbench.Result, tol float64) []pair {
	var out []pair
	prec := string(bs.Precision)
	copyMax, copyWhy := copyCeiling(bs, tol)
	for _, k := range []struct{ kernel, figure, rule string }{
		{"Copy", "memory.bandwidth.copy", schema.RuleAtLeast},
		{"Triad", "memory.bandwidth.triad", schema.RuleWithin},
		{"Dot", "memory.bandwidth.read", schema.RuleWithin},
	} {
		if r, ok := bs.Kernel(k.kernel); ok {
			// BabelStream's --csv output prints no version.
			p := pair{tool: "babelstream", version: "unknown", toolFigure: k.kernel + " (" + prec + ")", figure: k.figure,
				theirs: r.BandwidthBytesPerSec, rule: k.rule}
			if k.rule == schema.RuleAtLeast {
				p.maxRatio, p.ceilingReason = copyMax, copyWhy
			}
			out = append(out, p)
		}
	}
	for _, k := range []struct {
		p      mixbench.Precision
		figure string
	}{{mixbench.Single, "precision.fma.fp32"}, {mixbench.Double, "precision.fma.fp64"}, {mixbench.Half, "precision.fma.fp16"}, {mixbench.Int, "precision.mad.int32"}} {
		if !mb.Supported(k.p) {
			continue
		}
		f, why := mixbenchFactor(mb, k.p)
		ceiling := f * (1 + tol)
		if k.p == mixbench.Half {
			ceiling, why = fp16Ceiling(mb, tol)
		}
		out = append(out, pair{tool: "mixbench", version: orUnknown(mb.Version), toolFigure: "peak " + k.p.String(), figure: k.figure,
			theirs: mb.PeakOps(k.p), rule: schema.RuleAtLeast, maxRatio: ceiling, ceilingReason: why})
	}
	return out
}

func compare(p pair, ours, tol float64) schema.CrossCheck {
	c := schema.CrossCheck{Tool: p.tool, ToolVersion: p.version, ToolFigure: p.toolFigure, Figure: p.figure,
		Ours: ours, Theirs: p.theirs, RelativeDelta: (ours - p.theirs) / p.theirs, Tolerance: tol, Rule: p.rule}
	if p.rule == schema.RuleAtLeast {
		c = withCeiling(c, p.maxRatio, p.ceilingReason)
	}
	return c
}

// Disagreements returns the checks that fail their rule.
func Disagreements(cs []schema.CrossCheck) []schema.CrossCheck {
	var out []schema.CrossCheck
	for _, c := range cs {
		if !c.Agrees() {
			out = append(out, c)
		}
	}
	return out
}

func byName(v schema.CapabilityVector) map[string]float64 {
	out := map[string]float64{}
	for _, f := range figures.List(v) {
		out[f.Name] = f.Median
	}
	return out
}

// arrayElements sizes BabelStream's double arrays like our copy probe's
// arrays, so both measure the same work; 0 leaves the tool's default.
func arrayElements(v schema.CapabilityVector) int64 {
	if v.Memory == nil {
		return 0
	}
	for _, b := range v.Memory.Bandwidth {
		if b.Kernel == "copy" {
			return int64(b.ArrayBytes / 8)
		}
	}
	return 0
}

// runBabelStream runs BabelStream with args and parses its --csv output.
func runBabelStream(ctx context.Context, bin string, args []string, timeout time.Duration) (*babelstream.Result, error) {
	out, err := toolrun.Run(ctx, "babelstream", bin, args, toolEnv(bin), timeout)
	if err != nil {
		return nil, err
	}
	return babelstream.ParseCSV(bytes.NewReader(out))
}

// runMixbench runs mixbench and parses its output: a CUDA build on CUDA
// device idx (mixbench.RunDevice), any other build, or any with idx < 0,
// on its device 0.
func runMixbench(ctx context.Context, bin string, idx int, timeout time.Duration) (*mixbench.Result, error) {
	var out []byte
	var err error
	if cuda(bin) && idx >= 0 {
		out, err = mixbench.RunDevice(ctx, bin, idx, timeout)
	} else {
		out, err = toolrun.Run(ctx, "mixbench", bin, nil, toolEnv(bin), timeout)
	}
	if err != nil {
		return nil, err
	}
	return mixbench.Parse(bytes.NewReader(out))
}

// wrap prefixes a failed run's error.
func wrap(err error) error {
	if err != nil {
		return fmt.Errorf("cross-check: %w", err)
	}
	return nil
}

func timeout(c Config) time.Duration {
	if c.Timeout > 0 {
		return c.Timeout
	}
	return 10 * time.Minute
}

func orUnknown(s string) string {
	if s == "" {
		return "unknown"
	}
	return s
}

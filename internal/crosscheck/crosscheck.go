// Package crosscheck runs BabelStream and mixbench on an appraised device
// and holds our figures to theirs, each pair by its rule. Start with
// Preflight, before any probe, then Probe per device.
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

// DefaultTolerance is the tolerance when the operator sets none.
const DefaultTolerance = 0.05

// ErrDisagree is wrapped when a cross-check is outside its tolerance.
var ErrDisagree = errors.New("cross-check disagrees")

// Config says which tools to run and how strictly to compare.
type Config struct {
	// BabelStream and Mixbench are the tools' paths or names on PATH;
	// empty means the vendor's builds on PATH.
	BabelStream, Mixbench string
	// Tolerance is the largest accepted |ours-theirs|/theirs.
	Tolerance float64
	// Timeout bounds each tool's run.
	Timeout time.Duration
	// Required makes a tool that fails Preflight fail the run.
	Required bool
}

// Target is the device to check.
type Target struct {
	// BusAddress is the device's PCI address.
	BusAddress string
	// VendorID is its PCI vendor id, lowercase hex.
	VendorID string
	// Visible are the PCI addresses of the box's GPUs of that vendor.
	Visible []string
}

// Run compares both tools' figures on t with v's; a tool with a pair that
// disagrees runs again, keeping the better of its two runs. It fails when
// a tool does, or prints what its parser rejects, or t's index is unknown.
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

func checks(ps []pair, ours map[string]float64, tol float64) []schema.CrossCheck {
	var out []schema.CrossCheck
	for _, p := range ps {
		if mine, ok := ours[p.figure]; ok && p.theirs > 0 {
			out = append(out, compare(p, mine, tol))
		}
	}
	return out
}

// betterOf keeps, per figure, the pair with the higher tool figure.
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

// deviceIndex is t's index for bin: by bus address for a CUDA build,
// else 0 when t is its vendor's only GPU and the tool's only device.
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

// pair is our figure, the tool's, the rule and any ceiling with why.
type pair struct {
	tool, version, toolFigure, figure string
	theirs                            float64
	rule                              string
	maxRatio                          float64
	ceilingReason                     string
}

// pairs lists what both tools and we measure, by rule: BabelStream
// Triad and Dot within the tolerance of our triad and read; its Copy,
// and mixbench's peak per precision, at least up to a ceiling.
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

// arrayElements is our copy probe's array length in doubles, or 0.
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

func runBabelStream(ctx context.Context, bin string, args []string, timeout time.Duration) (*babelstream.Result, error) {
	out, err := toolrun.Run(ctx, "babelstream", bin, args, toolEnv(bin), timeout)
	if err != nil {
		return nil, err
	}
	return babelstream.ParseCSV(bytes.NewReader(out))
}

// runMixbench runs mixbench and parses its output: a CUDA build on CUDA
// device idx, any other or idx < 0 on its device 0.
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

// Package crosscheck runs standard tools (BabelStream, mixbench) on the
// device an appraisal measured and compares their figures with ours. A
// disagreement beyond the tolerance means one of the probes is wrong, and
// the appraisal then refuses to sign.
//
// Start with Run; Disagreements picks out the checks that failed.
package crosscheck

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"time"

	"github.com/everycycle/appraise/babelstream"
	"github.com/everycycle/appraise/internal/figures"
	"github.com/everycycle/appraise/internal/pci"
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
	// looked up on PATH ("cuda-stream", "mixbench-cuda" by default).
	BabelStream, Mixbench string
	// Tolerance is the largest accepted |ours-theirs|/theirs.
	Tolerance float64
	// Timeout bounds each tool's run.
	Timeout time.Duration
}

// Target is the device to check.
type Target struct {
	// BusAddress is the device's PCI address.
	BusAddress string
	// VendorID is its PCI vendor id, lowercase hex.
	VendorID string
	// Visible are the PCI addresses of every device the tools enumerate
	// (for CUDA, every NVIDIA GPU), to find the tools' index of ours.
	Visible []string
}

// Run runs both tools on t and compares their figures with v's. It fails
// when a tool cannot run or prints what its parser rejects; a figure that
// v lacks is not compared.
func Run(ctx context.Context, c Config, t Target, v schema.CapabilityVector) ([]schema.CrossCheck, error) {
	if t.VendorID != "10de" {
		return nil, fmt.Errorf("cross-check: the tools here are CUDA builds; device vendor %s is not NVIDIA", t.VendorID)
	}
	if t.BusAddress == "" {
		return nil, errors.New("cross-check: the device's bus address is unknown, so the tools' device index cannot be found")
	}
	idx, err := pci.DeviceIndexByBusID(t.BusAddress, t.Visible)
	if err != nil {
		return nil, fmt.Errorf("cross-check: %w", err)
	}
	ours := byName(v)
	bs, err := runBabelStream(ctx, c, idx, arrayElements(v))
	if err != nil {
		return nil, err
	}
	mb, err := runMixbench(ctx, c, idx)
	if err != nil {
		return nil, err
	}
	tol := c.Tolerance
	if tol <= 0 {
		tol = DefaultTolerance
	}
	var out []schema.CrossCheck
	for _, p := range pairs(bs, mb) {
		if mine, ok := ours[p.figure]; ok && p.theirs > 0 {
			out = append(out, compare(p, mine, tol))
		}
	}
	return out, nil
}

// pair is one of our figures, the tool figure it is held against, and
// the rule (schema.RuleWithin or schema.RuleAtLeast).
type pair struct {
	tool, version, toolFigure, figure string
	theirs                            float64
	rule                              string
}

// pairs lists what each tool measures that we measure too, and how the
// two must agree:
//
//   - BabelStream Triad against our triad and Dot against our read (same
//     array size; both stream the same arrays in the same pattern and
//     saturate memory): within the tolerance either way. These hold the
//     timing of our bandwidth probes to a standard tool's.
//   - BabelStream Copy against our copy: at least. Its copy keeps two
//     streams of one double per thread in flight, which on a card with a
//     wide memory system falls short of the card's copy rate (on an H200
//     it ran below its own Triad, which moves more bytes per element, and
//     5 % under PyTorch's copy_ in the same call, which ours matched).
//   - mixbench's peak per precision against our FMA and multiply-add
//     figures: at least. Its peak is the best point of a sweep of a mixed
//     load-and-compute kernel, what that kernel reaches, not the ALUs'
//     limit that ours, a pure dependent-chain kernel, measures.
//
// "At least" still refuses a figure of ours below the tool's, the sign of
// a probe that under-reports.
func pairs(bs *babelstream.Result, mb *mixbench.Result) []pair {
	var out []pair
	prec := string(bs.Precision)
	for _, k := range []struct{ kernel, figure, rule string }{
		{"Copy", "memory.bandwidth.copy", schema.RuleAtLeast},
		{"Triad", "memory.bandwidth.triad", schema.RuleWithin},
		{"Dot", "memory.bandwidth.read", schema.RuleWithin},
	} {
		if r, ok := bs.Kernel(k.kernel); ok {
			out = append(out, pair{"babelstream", orUnknown(bs.Version), k.kernel + " (" + prec + ")", k.figure, r.BandwidthBytesPerSec, k.rule})
		}
	}
	for _, p := range []struct {
		p      mixbench.Precision
		figure string
	}{{mixbench.Single, "precision.fma.fp32"}, {mixbench.Double, "precision.fma.fp64"}, {mixbench.Half, "precision.fma.fp16"}, {mixbench.Int, "precision.mad.int32"}} {
		if mb.Supported(p.p) {
			out = append(out, pair{"mixbench", orUnknown(mb.Version), "peak " + p.p.String(), p.figure, mb.PeakOps(p.p), schema.RuleAtLeast})
		}
	}
	return out
}

func compare(p pair, ours, tol float64) schema.CrossCheck {
	return schema.CrossCheck{Tool: p.tool, ToolVersion: p.version, ToolFigure: p.toolFigure, Figure: p.figure,
		Ours: ours, Theirs: p.theirs, RelativeDelta: (ours - p.theirs) / p.theirs, Tolerance: tol, Rule: p.rule}
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

func runBabelStream(ctx context.Context, c Config, idx int, elements int64) (*babelstream.Result, error) {
	bin, err := find(c.BabelStream, "cuda-stream", "--babelstream")
	if err != nil {
		return nil, err
	}
	args := append([]string{"--csv"}, babelstream.DeviceArgs(idx)...)
	if elements > 0 {
		args = append(args, "-s", fmt.Sprint(elements))
	}
	out, err := babelstream.Run(ctx, bin, args, timeout(c))
	if err != nil {
		return nil, fmt.Errorf("cross-check: %w", err)
	}
	r, err := babelstream.ParseCSV(bytes.NewReader(out))
	if err != nil {
		return nil, fmt.Errorf("cross-check: %w", err)
	}
	return r, nil
}

func runMixbench(ctx context.Context, c Config, idx int) (*mixbench.Result, error) {
	bin, err := find(c.Mixbench, "mixbench-cuda", "--mixbench")
	if err != nil {
		return nil, err
	}
	out, err := mixbench.RunDevice(ctx, bin, idx, timeout(c))
	if err != nil {
		return nil, fmt.Errorf("cross-check: %w", err)
	}
	r, err := mixbench.Parse(bytes.NewReader(out))
	if err != nil {
		return nil, fmt.Errorf("cross-check: %w", err)
	}
	return r, nil
}

// find resolves a tool given by path or name, else its default name on PATH.
func find(given, name, flag string) (string, error) {
	if given == "" {
		given = name
	}
	p, err := exec.LookPath(given)
	if err != nil {
		return "", fmt.Errorf("cross-check: %s not found (put it on PATH or pass %s PATH): %w", given, flag, err)
	}
	return p, nil
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

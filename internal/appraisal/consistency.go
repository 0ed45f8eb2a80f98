package appraisal

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/everycycle/appraise/gpu"
	"github.com/everycycle/appraise/schema"
)

// ErrInconsistent is wrapped when a GPU's figures that measure the same
// thing still disagree after the settle pass: the card is not signed.
var ErrInconsistent = errors.New("the card's own figures disagree")

// The consistency rules' bands (docs/measuring.md, "Consistency rules").
const (
	sameKernelBand       = 0.10 // the same kernel at two moments, either way
	rooflineComputeFloor = 0.5  // the roofline's compute roof, at least this share of the ALU rate
	memoryBand           = 0.15 // the roofline's memory roof against copy, either way
	noFloor              = 1e-6 // the least ratio of a rule without a floor
)

// consistencyRule holds one figure against another; sources are what the
// settle pass measures again.
type consistencyRule struct {
	name, figure, other, unit string
	min, max                  float64
	value, otherValue         func(v *schema.CapabilityVector) (float64, bool)
	sources                   []figureSource
}

// figureSource is a probe (soakSource: the soak that ran) and the part
// that measures a figure, "" for the whole probe.
type figureSource struct{ probe, item string }

// The parts of the probes the rules compare.
var (
	srcALUfp32   = figureSource{"webgpu-alu", "fp32-fma"}
	srcALUint32  = figureSource{"webgpu-alu", "int32-mad"}
	srcSoak      = figureSource{soakSource, ""}
	srcRoofFP32  = figureSource{"webgpu-roofline", "fma.fp32"}
	srcRoofInt32 = figureSource{"webgpu-roofline", "mad.int32"}
	srcCopy      = figureSource{"webgpu-stream", "copy"}
)

// consistencyRules are the rules a card's figures are held to.
func consistencyRules() []consistencyRule {
	fp32 := precisionOf("fma", "fp32")
	up := 1 + sameKernelBand
	return []consistencyRule{
		{"alu-vs-soak-cold", "precision.fma.fp32", "thermal.cold_ops_per_s", "ops/s", 1 / up, up, fp32, fmaColdOf, []figureSource{srcALUfp32, srcSoak}},
		{"soak-sustained-vs-cold", "thermal.sustained_ops_per_s", "thermal.cold_ops_per_s", "ops/s", noFloor, up, sustainedOf, coldOf, []figureSource{srcSoak}},
		{"roofline-compute-fp32", "roofline.fma.fp32.peak_ops_per_s", "precision.fma.fp32", "ops/s", rooflineComputeFloor, up,
			roofPeakOf("fma.fp32"), fp32, []figureSource{srcRoofFP32, srcALUfp32}},
		{"roofline-compute-int32", "roofline.mad.int32.peak_ops_per_s", "precision.mad.int32", "ops/s", rooflineComputeFloor, up,
			roofPeakOf("mad.int32"), precisionOf("mad", "int32"), []figureSource{srcRoofInt32, srcALUint32}},
		{"roofline-memory-fp32", "roofline.fma.fp32.bandwidth_bytes_per_s", "memory.bandwidth.copy", "bytes/s", 1 / (1 + memoryBand), 1 + memoryBand,
			roofBandwidthOf("fma.fp32"), copyOf, []figureSource{srcRoofFP32, srcCopy}},
		{"roofline-memory-int32", "roofline.mad.int32.bandwidth_bytes_per_s", "memory.bandwidth.copy", "bytes/s", 1 / (1 + memoryBand), 1 + memoryBand,
			roofBandwidthOf("mad.int32"), copyOf, []figureSource{srcRoofInt32, srcCopy}},
	}
}

// precisionOf reads the WebGPU ALU probe's figure for op and type.
func precisionOf(op, typ string) func(v *schema.CapabilityVector) (float64, bool) {
	return func(v *schema.CapabilityVector) (float64, bool) {
		for _, p := range v.Precisions {
			if p.Operation == op && p.InputType == typ && !p.MatrixEngine && p.Probe == (gpu.ALUProbe{}).Name() {
				return p.OpsPerS.Median, true
			}
		}
		return 0, false
	}
}

func coldOf(v *schema.CapabilityVector) (float64, bool) {
	if v.Thermal == nil {
		return 0, false
	}
	return v.Thermal.ColdOpsPerS, true
}

// fmaColdOf is the WebGPU FMA soak's cold rate; another load's is none.
func fmaColdOf(v *schema.CapabilityVector) (float64, bool) {
	if v.Thermal == nil || v.Thermal.Probe != (gpu.SoakProbe{}).Name() {
		return 0, false
	}
	return v.Thermal.ColdOpsPerS, true
}

func sustainedOf(v *schema.CapabilityVector) (float64, bool) {
	if v.Thermal == nil {
		return 0, false
	}
	return v.Thermal.SustainedOpsPerS, true
}

func roofPeakOf(prec string) func(v *schema.CapabilityVector) (float64, bool) {
	return func(v *schema.CapabilityVector) (float64, bool) {
		for _, r := range v.Roofline {
			if r.Precision == prec {
				return r.PeakOpsPerS, true
			}
		}
		return 0, false
	}
}

func roofBandwidthOf(prec string) func(v *schema.CapabilityVector) (float64, bool) {
	return func(v *schema.CapabilityVector) (float64, bool) {
		for _, r := range v.Roofline {
			if r.Precision == prec {
				return r.BandwidthBytesPerS, true
			}
		}
		return 0, false
	}
}

func copyOf(v *schema.CapabilityVector) (float64, bool) {
	if v.Memory == nil {
		return 0, false
	}
	for _, b := range v.Memory.Bandwidth {
		if b.Kernel == "copy" && b.Probe == (gpu.StreamProbe{}).Name() {
			return b.BytesPerS.Median, true
		}
	}
	return 0, false
}

// checkConsistency applies every rule whose two figures v holds.
func checkConsistency(rules []consistencyRule, v *schema.CapabilityVector) []schema.ConsistencyCheck {
	var out []schema.ConsistencyCheck
	for _, r := range rules {
		a, okA := r.value(v)
		b, okB := r.otherValue(v)
		if !okA || !okB || a <= 0 || b <= 0 {
			continue
		}
		c := schema.ConsistencyCheck{Rule: r.name, Figure: r.figure, OtherFigure: r.other, Value: a, OtherValue: b, Unit: r.unit,
			Ratio: a / b, MinRatio: r.min, MaxRatio: r.max}
		c.Agrees = c.Within()
		out = append(out, c)
	}
	return out
}

// settleConsistency holds v to the rules; when some disagree, remeasure
// runs their sources again (on a software adapter with every source
// coupled to them), once, and the rules are applied again, each check with
// a re-measured figure marked so. What still disagrees fails a GPU's card
// (ErrInconsistent); a software adapter's records it.
func settleConsistency(v *schema.CapabilityVector, software bool, remeasure func(again []figureSource, disagreeing []schema.ConsistencyCheck) error) error {
	rules := consistencyRules()
	checks := checkConsistency(rules, v)
	var again []figureSource
	var disagreeing []schema.ConsistencyCheck
	for _, c := range checks {
		if !c.Agrees {
			disagreeing = append(disagreeing, c)
			again = addSources(again, rules[ruleIndex(rules, c.Rule)].sources)
		}
	}
	if software {
		again = coupled(rules, checks, again)
	}
	if len(again) > 0 {
		if err := remeasure(again, disagreeing); err != nil {
			return fmt.Errorf("re-measuring %s: %w", sourcesString(again), err)
		}
		checks = checkConsistency(rules, v)
		for i := range checks {
			r := rules[ruleIndex(rules, checks[i].Rule)]
			checks[i].Remeasured = slices.ContainsFunc(r.sources, func(s figureSource) bool { return slices.Contains(again, s) })
		}
	}
	v.Consistency = checks
	if bad := disagreements(checks); len(bad) > 0 && !software {
		return fmt.Errorf("%w after re-measuring: %s", ErrInconsistent, strings.Join(bad, "; "))
	}
	return nil
}

// addSources is again with each of srcs it lacks appended.
func addSources(again, srcs []figureSource) []figureSource {
	for _, s := range srcs {
		if !slices.Contains(again, s) {
			again = append(again, s)
		}
	}
	return again
}

// coupled is again with the sources of every check that shares one with
// it, until none is added: no check then holds a figure measured again
// against one that was not.
func coupled(rules []consistencyRule, checks []schema.ConsistencyCheck, again []figureSource) []figureSource {
	for n := -1; n != len(again); {
		n = len(again)
		for _, c := range checks {
			srcs := rules[ruleIndex(rules, c.Rule)].sources
			if slices.ContainsFunc(srcs, func(s figureSource) bool { return slices.Contains(again, s) }) {
				again = addSources(again, srcs)
			}
		}
	}
	return again
}

// disagreements describes each check that does not agree, one line each.
func disagreements(checks []schema.ConsistencyCheck) []string {
	var bad []string
	for _, c := range checks {
		if !c.Agrees {
			bad = append(bad, fmt.Sprintf("%s %.4g vs %s %.4g (ratio %.3f, rule %s: [%.3f, %.3f])", c.Figure, c.Value, c.OtherFigure, c.OtherValue, c.Ratio, c.Rule, c.MinRatio, c.MaxRatio))
		}
	}
	return bad
}

// checksString is each check's rule, ratio and band, for a progress line.
func checksString(checks []schema.ConsistencyCheck) string {
	out := make([]string, len(checks))
	for i, c := range checks {
		out[i] = fmt.Sprintf("%s %.3f outside [%.3f, %.3f]", c.Rule, c.Ratio, c.MinRatio, c.MaxRatio)
	}
	return strings.Join(out, "; ")
}

func ruleIndex(rules []consistencyRule, name string) int {
	return slices.IndexFunc(rules, func(r consistencyRule) bool { return r.name == name })
}

// sourcesString names sources as "probe item, probe".
func sourcesString(srcs []figureSource) string {
	out := make([]string, len(srcs))
	for i, s := range srcs {
		out[i] = strings.TrimSpace(s.probe + " " + s.item)
	}
	return strings.Join(out, ", ")
}

package appraisal

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/everycycle/appraise/coopmat/link"
	"github.com/everycycle/appraise/gpu"
	"github.com/everycycle/appraise/internal/probe"
	"github.com/everycycle/appraise/internal/probe/cublaslt"
	"github.com/everycycle/appraise/schema"
)

// ErrInconsistent is wrapped when two figures of a GPU's card that
// measure the same thing still disagree beyond their rule after the
// probes behind them ran again: the card is not signed.
var ErrInconsistent = errors.New("the card's own figures disagree")

// Bands of the consistency rules (docs/measuring.md, "Consistency rules"):
//
//   - sameKernelBand: the ALU probe's fp32 FMA rate and the soak's cold
//     rate run the identical kernel at the identical size; they differ
//     only in when they run (the soak comes after the other probes, at
//     the clock the device then holds) and in how a sample is cut (timed
//     pieces against calibrated samples). A GPU's boost clock moves a few
//     per cent between such moments; we accept 10 % either way. The same
//     band bounds the soak's sustained rate above its cold rate: a load
//     that runs faster at its end than at its start did not measure the
//     device at speed at its start (throttling lowers the sustained rate,
//     so there is no floor).
//   - rooflineComputeFloor: the roofline's compute roof is its sweep's
//     best point, a different kernel from the ALU probe's: four
//     independent vec4 chains per invocation that also stream 8 bytes per
//     element, against the ALU kernel's many chains that touch no memory.
//     A device that needs more independent work in flight than four
//     chains give reaches less there; below half the ALU rate the roof
//     would no longer be a compute roof. It cannot exceed the ALU rate of
//     the same operation by more than sameKernelBand.
//   - memoryBand: the roofline's memory roof is the bytes/s of its most
//     memory-bound point (0.25 ops/byte: one counted operation per
//     scalar), which streams one read and one write per element, as the
//     copy kernel does, but over its own arrays in blocks of its own
//     shape, where copy's elements per invocation were chosen by a
//     trial; we accept 15 % either way. Both count the same bytes, 4 read
//     and 4 written per scalar (neither counts the read of a destination
//     line that a CPU's store may cost before it writes it: the same for
//     both), over arrays of the same size, on the same threads. On a GPU
//     the point's one operation per scalar hides under its memory
//     traffic. On a software adapter it does not hide: the host's cores
//     run the loads and stores lane by lane, and those instructions, not
//     the memory, set both figures (lavapipe's copy reaches a quarter of
//     the host's own copy on the same cores, and runs no faster over
//     arrays its caches hold; docs/performance.md), so whatever else the
//     point does per element adds to its time. The rule then holds only if that point runs its
//     counted operation and nothing else: the roofline runs it there
//     without a loop (gpu.RooflineKernel.One), whose control alone
//     held the roof to 0.74–0.84 of copy on every software card before
//     (docs/history.md). The counted operation itself, 0.25 ops/byte, costs a
//     few per cent of the point's time at the host's compute roof.
//   - pathBandwidthBand, pathLatencyBand: a host-link or launch figure is
//     the path a trial found fastest, sampled afresh (vulkan_link.go);
//     the card keeps the other paths' figures of the same quantity beside
//     it. Should another path's figure beat the kept one, the card would
//     say the device moves or answers faster than its own figure says.
//     The fresh samples of one path repeat within a few per cent on a GPU
//     (a bulk transfer's median within 0.3 % from build to build on the
//     H200); a round trip of microseconds rides on the host's wake-ups
//     and moved up to 14 % there. So another path may beat the kept one
//     by at most 10 % in bandwidth and 25 % in latency. On a software
//     adapter every path is the host's cores, shared with all else that
//     runs, and its card records what still disagrees.
const (
	sameKernelBand       = 0.10
	rooflineComputeFloor = 0.5
	memoryBand           = 0.15
	pathBandwidthBand    = 0.10
	pathLatencyBand      = 0.25
	// noFloor is the least ratio a rule without a floor records (the
	// schema wants a positive bound).
	noFloor = 1e-6
)

// consistencyRule holds one figure against another; sources are where
// both come from, what a re-measurement runs again.
type consistencyRule struct {
	name, figure, other, unit string
	min, max                  float64
	value, otherValue         func(v *schema.CapabilityVector) (float64, bool)
	sources                   []figureSource
}

// figureSource is where a figure comes from: a probe, and the part of it
// that measures the figure (an ALU kernel, a roofline precision, a
// bandwidth kernel), or "" when only the whole probe does (the soak).
type figureSource struct{ probe, item string }

// The parts of the probes the rules compare.
var (
	srcALUfp32   = figureSource{"webgpu-alu", "fp32-fma"}
	srcALUint32  = figureSource{"webgpu-alu", "int32-mad"}
	srcSoak      = figureSource{"webgpu-soak", ""}
	srcRoofFP32  = figureSource{"webgpu-roofline", "fma.fp32"}
	srcRoofInt32 = figureSource{"webgpu-roofline", "mad.int32"}
	srcCopy      = figureSource{"webgpu-stream", "copy"}
	// srcLink is raw Vulkan's host link and launch probe, with the rule
	// that keeps a path per figure (vulkanLink): what the path rules
	// run again.
	srcLink = figureSource{link.ProbeHostLink, ""}
)

// consistencyRules are the rules a card's figures are held to.
func consistencyRules() []consistencyRule {
	fp32 := precisionOf("fma", "fp32")
	up := 1 + sameKernelBand
	return []consistencyRule{
		{"alu-vs-soak-cold", "precision.fma.fp32", "thermal.cold_ops_per_s", "ops/s", 1 / up, up, fp32, coldOf, []figureSource{srcALUfp32, srcSoak}},
		{"soak-sustained-vs-cold", "thermal.sustained_ops_per_s", "thermal.cold_ops_per_s", "ops/s", noFloor, up, sustainedOf, coldOf, []figureSource{srcSoak}},
		{"roofline-compute-fp32", "roofline.fma.fp32.peak_ops_per_s", "precision.fma.fp32", "ops/s", rooflineComputeFloor, up,
			roofPeakOf("fma.fp32"), fp32, []figureSource{srcRoofFP32, srcALUfp32}},
		{"roofline-compute-int32", "roofline.mad.int32.peak_ops_per_s", "precision.mad.int32", "ops/s", rooflineComputeFloor, up,
			roofPeakOf("mad.int32"), precisionOf("mad", "int32"), []figureSource{srcRoofInt32, srcALUint32}},
		{"roofline-memory-fp32", "roofline.fma.fp32.bandwidth_bytes_per_s", "memory.bandwidth.copy", "bytes/s", 1 / (1 + memoryBand), 1 + memoryBand,
			roofBandwidthOf("fma.fp32"), copyOf, []figureSource{srcRoofFP32, srcCopy}},
		{"roofline-memory-int32", "roofline.mad.int32.bandwidth_bytes_per_s", "memory.bandwidth.copy", "bytes/s", 1 / (1 + memoryBand), 1 + memoryBand,
			roofBandwidthOf("mad.int32"), copyOf, []figureSource{srcRoofInt32, srcCopy}},
		// The path rules: the best other path's figure ÷ the kept one for
		// bandwidth, the kept one ÷ the best other's for latency, so that
		// the ratio is how far another path beat the kept one (above 1).
		{"host-to-device-kept-path", "interconnect.host_to_device.other_path", "interconnect.host_to_device", "bytes/s", noFloor, 1 + pathBandwidthBand,
			otherTransferOf(hostToDevice), keptTransferOf(hostToDevice), []figureSource{srcLink}},
		{"device-to-host-kept-path", "interconnect.device_to_host.other_path", "interconnect.device_to_host", "bytes/s", noFloor, 1 + pathBandwidthBand,
			otherTransferOf(deviceToHost), keptTransferOf(deviceToHost), []figureSource{srcLink}},
		{"empty-dispatch-kept-path", "launch.empty_dispatch_s", "launch.other_paths.empty_dispatch_s", "s", noFloor, 1 + pathLatencyBand,
			keptLatencyOf(emptyDispatch), otherLatencyOf(emptyDispatch), []figureSource{srcLink}},
		{"upload-kept-path", "launch.upload_1mib_s", "launch.other_paths.upload_1mib_s", "s", noFloor, 1 + pathLatencyBand,
			keptLatencyOf(upload1MiB), otherLatencyOf(upload1MiB), []figureSource{srcLink}},
	}
}

// The host link's two directions, each read from a card's interconnect.
func hostToDevice(ic *schema.Interconnect) *schema.Transfer { return ic.HostToDevice }
func deviceToHost(ic *schema.Interconnect) *schema.Transfer { return ic.DeviceToHost }

// keptTransferOf reads the kept path's bandwidth of the direction dir
// selects, when another path measured it too.
func keptTransferOf(dir func(*schema.Interconnect) *schema.Transfer) func(v *schema.CapabilityVector) (float64, bool) {
	return func(v *schema.CapabilityVector) (float64, bool) {
		if v.Interconnect == nil {
			return 0, false
		}
		t := dir(v.Interconnect)
		if t == nil || t.OtherPath == nil {
			return 0, false
		}
		return t.BytesPerS.Median, true
	}
}

// otherTransferOf reads the best bandwidth another path measured for the
// direction dir selects.
func otherTransferOf(dir func(*schema.Interconnect) *schema.Transfer) func(v *schema.CapabilityVector) (float64, bool) {
	return func(v *schema.CapabilityVector) (float64, bool) {
		if v.Interconnect == nil || dir(v.Interconnect) == nil {
			return 0, false
		}
		best, ok := 0.0, false
		for o := dir(v.Interconnect).OtherPath; o != nil; o = o.OtherPath {
			best, ok = max(best, o.BytesPerS.Median), true
		}
		return best, ok
	}
}

// The launch figures, as the card's other paths name them.
const (
	emptyDispatch = "empty_dispatch_s"
	upload1MiB    = "upload_1mib_s"
)

// keptLatencyOf reads the kept path's launch figure, when another path
// measured it too.
func keptLatencyOf(figure string) func(v *schema.CapabilityVector) (float64, bool) {
	return func(v *schema.CapabilityVector) (float64, bool) {
		l := v.LaunchOverhead
		if l == nil || !slices.ContainsFunc(l.OtherPaths, func(o schema.OtherLatency) bool { return o.Figure == figure }) {
			return 0, false
		}
		if figure == emptyDispatch {
			return l.EmptyDispatchS.Median, true
		}
		return l.Upload1MiBS.Median, true
	}
}

// otherLatencyOf reads the lowest latency another path measured for the
// launch figure.
func otherLatencyOf(figure string) func(v *schema.CapabilityVector) (float64, bool) {
	return func(v *schema.CapabilityVector) (float64, bool) {
		if v.LaunchOverhead == nil {
			return 0, false
		}
		best, ok := 0.0, false
		for _, o := range v.LaunchOverhead.OtherPaths {
			if o.Figure == figure && (!ok || o.LatencyS.Median < best) {
				best, ok = o.LatencyS.Median, true
			}
		}
		return best, ok
	}
}

// precisionOf reads the WebGPU ALU probe's figure for op and type: the
// one the soak and the roofline run the same operation as.
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

// settleConsistency holds v's figures to the rules. When some disagree,
// remeasure runs again the parts of the probes behind them, those alone
// (on the still-open device), told the disagreeing checks, and the rules are applied once more (once:
// a check that agreed before and disagrees on a re-measured figure is not
// measured a third time); every check with a re-measured figure is marked
// so. What still disagrees fails a GPU's card (ErrInconsistent); a
// software adapter's card — the host's CPU, shared with all else that
// runs — records it. Every check, agreeing or not, goes into v.Consistency.
func settleConsistency(v *schema.CapabilityVector, software bool, remeasure func(again []figureSource, disagreeing []schema.ConsistencyCheck) error) error {
	rules := consistencyRules()
	checks := checkConsistency(rules, v)
	var again []figureSource
	var disagreeing []schema.ConsistencyCheck
	for _, c := range checks {
		if c.Agrees {
			continue
		}
		disagreeing = append(disagreeing, c)
		for _, src := range rules[ruleIndex(rules, c.Rule)].sources {
			if !slices.Contains(again, src) {
				again = append(again, src)
			}
		}
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

// checksString says of each check its rule, ratio and band, for a
// progress line.
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

// remeasurer runs the parts of ps that srcs name again on d, probe by
// probe in the order of ps (each probe's parts at once, through
// probe.PartProbe; a whole probe when a source names no part or the probe
// has no parts), and puts their new figures in v in place of the old
// ones.
func remeasurer(ctx context.Context, d *gpu.Device, ps []probe.Probe[*gpu.Device], v *schema.CapabilityVector, w *worker) func([]figureSource, []schema.ConsistencyCheck) error {
	return func(srcs []figureSource, disagreeing []schema.ConsistencyCheck) error {
		// What disagreed, and by how much, before it is measured again:
		// the card keeps only the checks after the re-measure.
		if len(disagreeing) > 0 {
			w.stage("consistency: disagreeing: " + checksString(disagreeing))
		}
		for _, p := range ps {
			var items []string
			whole := false
			for _, s := range srcs {
				if s.probe == p.Name() {
					items = append(items, s.item)
					whole = whole || s.item == ""
				}
			}
			if len(items) == 0 {
				continue
			}
			if _, parts := p.(probe.PartProbe[*gpu.Device]); whole || !parts {
				items = nil
			}
			w.stage("consistency: " + strings.TrimSpace(p.Name()+" "+strings.Join(items, " ")) + " again")
			again := func() error { return measureAgain(ctx, d, p, items, v) }
			var err error
			if isSoak(p.Name()) {
				err = w.soakAgain(ctx, again)
			} else {
				err = w.inTurnIf(ctx, hostShared(p.Name()), again)
			}
			if err != nil {
				return err
			}
			w.ended(p.Name())
		}
		return nil
	}
}

// measureAgain runs p on d again (only the parts items names, when it
// names some) and puts what it measured in v in place of what it
// measured before (replaceFigures). The WebGPU probes and the vendor
// library's GEMM soak (whose device is a bus address) both go through it.
func measureAgain[D any](ctx context.Context, d D, p probe.Probe[D], items []string, v *schema.CapabilityVector) error {
	var c *probe.Contribution
	var err error
	if pp, ok := p.(probe.PartProbe[D]); ok && len(items) > 0 {
		c, err = pp.RunParts(ctx, d, items)
	} else {
		items = nil
		c, err = p.Run(ctx, d)
	}
	if err != nil {
		return fmt.Errorf("%w: %s: %w", ErrProbe, p.Name(), err)
	}
	scratch := &schema.CapabilityVector{Memory: &schema.Memory{}}
	if err := add(scratch, c); err != nil {
		return fmt.Errorf("%s: %w", p.Name(), err)
	}
	replaceFigures(p.Name(), items, scratch, v)
	return nil
}

// replaceFigures puts the figures probe measured into scratch in v, in
// place of those it measured before: of the parts items names, or of the
// whole probe when items is empty.
func replaceFigures(probe string, items []string, scratch, v *schema.CapabilityVector) {
	all := len(items) == 0
	switch probe {
	case gpu.ALUProbe{}.Name():
		v.Precisions = slices.DeleteFunc(v.Precisions, func(p schema.PrecisionThroughput) bool {
			return p.Probe == probe && (all || slices.Contains(items, aluKernelOf(p)))
		})
		v.Precisions = append(v.Precisions, scratch.Precisions...)
	case gpu.StreamProbe{}.Name():
		v.Memory.Bandwidth = slices.DeleteFunc(v.Memory.Bandwidth, func(b schema.Bandwidth) bool {
			return b.Probe == probe && (all || slices.Contains(items, b.Kernel))
		})
		v.Memory.Bandwidth = append(v.Memory.Bandwidth, scratch.Memory.Bandwidth...)
	case gpu.RooflineProbe{}.Name():
		if all {
			v.Roofline = scratch.Roofline
			v.NotMeasured = slices.DeleteFunc(v.NotMeasured, func(o schema.Omission) bool { return o.Field == "roofline" })
			v.NotMeasured = append(v.NotMeasured, scratch.NotMeasured...)
			return
		}
		v.Roofline = slices.DeleteFunc(v.Roofline, func(r schema.RooflineRatio) bool { return slices.Contains(items, r.Precision) })
		v.Roofline = append(v.Roofline, scratch.Roofline...)
		order := func(r schema.RooflineRatio) int {
			return slices.IndexFunc(gpu.RooflineKernels(), func(k gpu.RooflineKernel) bool { return k.Precision == r.Precision })
		}
		slices.SortStableFunc(v.Roofline, func(a, b schema.RooflineRatio) int { return cmp.Compare(order(a), order(b)) })
	case gpu.SoakProbe{}.Name(), cublaslt.SoakProbe{}.Name():
		v.Thermal = scratch.Thermal
		v.NotMeasured = slices.DeleteFunc(v.NotMeasured, func(o schema.Omission) bool {
			return o.Field == "thermal" || strings.HasPrefix(o.Field, "thermal.")
		})
		v.NotMeasured = append(v.NotMeasured, scratch.NotMeasured...)
	}
}

// aluKernelOf names the ALU kernel (gpu.ALUKernels) behind a precision
// figure of the ALU probe.
func aluKernelOf(p schema.PrecisionThroughput) string {
	for _, k := range gpu.ALUKernels() {
		if k.Operation == p.Operation && k.InputType == p.InputType {
			return k.Name
		}
	}
	return ""
}

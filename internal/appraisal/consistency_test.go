package appraisal

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/everycycle/appraise/gpu"
	"github.com/everycycle/appraise/internal/platform/thermal"
	"github.com/everycycle/appraise/internal/probe"
	"github.com/everycycle/appraise/schema"
)

// figuresVector is a synthetic vector with the figures the rules compare:
// fp32 and int32 ALU rates, the soak's cold and sustained rates, the
// roofline roofs and the copy bandwidth.
func figuresVector(fp32, int32, cold, sustained, roof32, roofI32, roofBW, copyBW float64) *schema.CapabilityVector {
	st := func(m float64) schema.Stat { return schema.Stat{Samples: 5, Median: m, Min: m, Max: m} }
	return &schema.CapabilityVector{
		Precisions: []schema.PrecisionThroughput{
			{Operation: "fma", InputType: "fp32", Probe: "webgpu-alu", OpsPerS: st(fp32)},
			{Operation: "mad", InputType: "int32", Probe: "webgpu-alu", OpsPerS: st(int32)},
			{Operation: "fma", InputType: "fp64", Probe: "vulkan-fma-fp64", OpsPerS: st(1)},
		},
		Thermal: &schema.ThermalEnvelope{ColdOpsPerS: cold, SustainedOpsPerS: sustained, Probe: "webgpu-soak"},
		Roofline: []schema.RooflineRatio{
			{Precision: "fma.fp32", PeakOpsPerS: roof32, BandwidthBytesPerS: roofBW},
			{Precision: "mad.int32", PeakOpsPerS: roofI32, BandwidthBytesPerS: roofBW},
		},
		Memory: &schema.Memory{Bandwidth: []schema.Bandwidth{{Kernel: "copy", Probe: "webgpu-stream", BytesPerS: st(copyBW)}}},
	}
}

// quietH200 holds the ratios of a quiet H200's card (roofline fp32 roof
// 0.82 of the ALU rate, memory roof 0.97 of copy, cold and sustained
// equal): every rule agrees.
func quietH200() *schema.CapabilityVector {
	return figuresVector(64.7e12, 33.2e12, 64.8e12, 64.8e12, 53.1e12, 33.4e12, 4.07e12, 4.2e12)
}

// newcomer holds a real software card whose rules disagreed: fp32 49.9
// against a soak whose cold rate is 50.1 and sustained 93.8, int32 97.3
// against a roofline peak of 36.6.
func newcomer() *schema.CapabilityVector {
	return figuresVector(49.9e9, 97.3e9, 50.1e9, 93.8e9, 40e9, 36.6e9, 20e9, 19e9)
}

func verdicts(cs []schema.ConsistencyCheck) map[string]bool {
	out := map[string]bool{}
	for _, c := range cs {
		out[c.Rule] = c.Agrees
	}
	return out
}

func TestConsistencyRulesOnSyntheticCards(t *testing.T) {
	all := []string{"alu-vs-soak-cold", "soak-sustained-vs-cold", "roofline-compute-fp32", "roofline-compute-int32", "roofline-memory-fp32", "roofline-memory-int32"}
	got := verdicts(checkConsistency(consistencyRules(), quietH200()))
	for _, r := range all {
		if agrees, ok := got[r]; !ok || !agrees {
			t.Errorf("quiet H200: %s agrees=%t present=%t", r, agrees, ok)
		}
	}
	got = verdicts(checkConsistency(consistencyRules(), newcomer()))
	for _, r := range []string{"soak-sustained-vs-cold", "roofline-compute-int32"} {
		if got[r] {
			t.Errorf("newcomer's card: %s agrees", r)
		}
	}
	if !got["alu-vs-soak-cold"] {
		t.Errorf("newcomer's card: fp32 49.9 against cold 50.1 disagrees")
	}
	// A throttling card: sustained far below cold is what the thermal
	// envelope records, not a contradiction.
	throttled := quietH200()
	throttled.Thermal.SustainedOpsPerS = 0.6 * throttled.Thermal.ColdOpsPerS
	if !verdicts(checkConsistency(consistencyRules(), throttled))["soak-sustained-vs-cold"] {
		t.Error("throttling read as a contradiction")
	}
	// Without a soak or a roofline, only the rules whose figures exist apply.
	v := quietH200()
	v.Thermal, v.Roofline = nil, nil
	if cs := checkConsistency(consistencyRules(), v); len(cs) != 0 {
		t.Errorf("rules without their figures: %+v", cs)
	}
}

// TestSettleConsistency: agreement needs no re-measurement; a
// disagreement re-runs exactly the parts of the probes behind it; what the second
// measurement fixes signs; what persists fails a GPU's card and is
// recorded on a software adapter's. Every recorded check validates.
func TestSettleConsistency(t *testing.T) {
	never := func([]figureSource, []schema.ConsistencyCheck) error {
		t.Fatal("re-measured an agreeing card")
		return nil
	}
	v := quietH200()
	if err := settleConsistency(v, false, never); err != nil || len(v.Consistency) != 6 {
		t.Fatalf("quiet H200: %v, %d checks", err, len(v.Consistency))
	}

	var asked []figureSource
	fix := func(v *schema.CapabilityVector) func([]figureSource, []schema.ConsistencyCheck) error {
		return func(ps []figureSource, _ []schema.ConsistencyCheck) error {
			asked = ps
			v.Thermal.SustainedOpsPerS = v.Thermal.ColdOpsPerS
			return nil
		}
	}
	v = quietH200()
	v.Thermal.SustainedOpsPerS = 1.5 * v.Thermal.ColdOpsPerS
	if err := settleConsistency(v, false, fix(v)); err != nil {
		t.Fatalf("fixed by re-measuring: %v", err)
	}
	if !slices.Equal(asked, []figureSource{srcSoak}) {
		t.Errorf("re-ran %v, want the soak only", asked)
	}
	for _, c := range v.Consistency {
		if c.Remeasured != strings.Contains(c.Rule, "soak") || !c.Agrees {
			t.Errorf("%+v", c)
		}
	}

	keep := func([]figureSource, []schema.ConsistencyCheck) error { return nil }
	v = newcomer()
	err := settleConsistency(v, false, keep)
	if !errors.Is(err, ErrInconsistent) || !strings.Contains(err.Error(), "roofline-compute-int32") {
		t.Fatalf("a GPU whose figures stay apart: %v", err)
	}
	v = newcomer()
	if err := settleConsistency(v, true, keep); err != nil {
		t.Fatalf("software adapter: %v", err)
	}
	disagree := 0
	for _, c := range v.Consistency {
		if !c.Agrees {
			disagree++
			if !c.Remeasured {
				t.Errorf("%s recorded without re-measuring", c.Rule)
			}
		}
		if err := schema.Validate(c); err != nil {
			t.Errorf("%s: %v", c.Rule, err)
		}
	}
	if disagree == 0 {
		t.Error("the software card records no disagreement")
	}
	// The memory roof disagrees; on a software adapter every source coupled
	// to it runs again; re-running the roofline fixes it but lowers the
	// int32 compute roof, which agreed before: recorded as re-measured, not
	// measured a third time.
	v = quietH200()
	v.Roofline[0].BandwidthBytesPerS = 2 * v.Memory.Bandwidth[0].BytesPerS.Median
	v.Roofline[1].BandwidthBytesPerS = v.Roofline[0].BandwidthBytesPerS
	calls := 0
	shift := func(srcs []figureSource, _ []schema.ConsistencyCheck) error {
		calls++
		if want := []figureSource{srcRoofFP32, srcCopy, srcRoofInt32, srcALUfp32, srcALUint32, srcSoak}; !slices.Equal(srcs, want) {
			t.Errorf("re-ran %v, want %v", srcs, want)
		}
		v.Roofline[0].BandwidthBytesPerS, v.Roofline[1].BandwidthBytesPerS = 4.1e12, 4.1e12
		v.Roofline[1].PeakOpsPerS = 0.3 * v.Precisions[1].OpsPerS.Median
		return nil
	}
	if err := settleConsistency(v, true, shift); err != nil || calls != 1 {
		t.Fatalf("software, shifted: %v after %d re-measurements", err, calls)
	}
	for _, c := range v.Consistency {
		if c.Rule == "roofline-compute-int32" && (c.Agrees || !c.Remeasured) {
			t.Errorf("%+v", c)
		}
	}
	failing := func([]figureSource, []schema.ConsistencyCheck) error { return errors.New("device lost") }
	if err := settleConsistency(newcomer(), true, failing); err == nil || !strings.Contains(err.Error(), "device lost") {
		t.Errorf("a failed re-measurement: %v", err)
	}
}

// TestSettleOneRule: on a GPU, a disagreement of the int32 compute roof
// re-runs the int32 roofline sweep and the int32 ALU kernel, nothing else,
// and marks re-measured the checks whose figures those are.
func TestSettleOneRule(t *testing.T) {
	v := quietH200()
	v.Roofline[1].PeakOpsPerS = 0.3 * v.Precisions[1].OpsPerS.Median
	var asked []figureSource
	err := settleConsistency(v, false, func(srcs []figureSource, _ []schema.ConsistencyCheck) error {
		asked = srcs
		v.Roofline[1].PeakOpsPerS = v.Precisions[1].OpsPerS.Median
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if want := []figureSource{srcRoofInt32, srcALUint32}; !slices.Equal(asked, want) {
		t.Errorf("re-ran %v, want %v", asked, want)
	}
	for _, c := range v.Consistency {
		if want := strings.HasSuffix(c.Rule, "int32"); c.Remeasured != want || !c.Agrees {
			t.Errorf("%s: remeasured %t agrees %t, want remeasured %t", c.Rule, c.Remeasured, c.Agrees, want)
		}
	}
}

// TestRuleSources: every part a rule names is one its probe can measure
// alone, and every probe a rule names is in the settle pass's table.
func TestRuleSources(t *testing.T) {
	parts := map[string][]string{}
	for _, k := range gpu.ALUKernels() {
		parts["webgpu-alu"] = append(parts["webgpu-alu"], k.Name)
	}
	for _, k := range gpu.RooflineKernels() {
		parts["webgpu-roofline"] = append(parts["webgpu-roofline"], k.Precision)
	}
	for _, k := range gpu.BandwidthKernels() {
		parts["webgpu-stream"] = append(parts["webgpu-stream"], k.Name)
	}
	ps := map[string]probe.Probe[*gpu.Device]{}
	for _, p := range []probe.Probe[*gpu.Device]{gpu.StreamProbe{}, gpu.ALUProbe{}, gpu.RooflineProbe{}, gpu.SoakProbe{}} {
		ps[p.Name()] = p
	}
	table := map[string]bool{}
	for _, a := range newDeviceRun(nil, Candidate{}, DevicePlan{}, nil, nil, nil).again {
		table[a.probe] = true
	}
	for _, r := range consistencyRules() {
		for _, s := range r.sources {
			if !table[s.probe] {
				t.Errorf("%s: %q is in no re-measure of the settle pass", r.name, s.probe)
			}
			if s.probe == soakSource {
				continue
			}
			p, ok := ps[s.probe]
			if !ok {
				t.Errorf("%s: no probe %q", r.name, s.probe)
				continue
			}
			if s.item == "" {
				continue
			}
			if _, ok := p.(probe.PartProbe[*gpu.Device]); !ok || !slices.Contains(parts[s.probe], s.item) {
				t.Errorf("%s: %s cannot measure %q alone", r.name, s.probe, s.item)
			}
		}
	}
}

// TestReplaceFigures: a re-measured probe's figures replace its old ones
// and leave other probes' figures alone; a re-measured part replaces that
// part's figures only.
func TestReplaceFigures(t *testing.T) {
	v := quietH200()
	scratch := figuresVector(70e12, 35e12, 1, 1, 1, 1, 1, 1)
	scratch.Precisions = scratch.Precisions[:2]
	replaceFigures("webgpu-alu", nil, scratch, v)
	if len(v.Precisions) != 3 {
		t.Fatalf("%d precisions", len(v.Precisions))
	}
	if f, _ := precisionOf("fma", "fp32")(v); f != 70e12 {
		t.Errorf("fp32 %g after re-measuring", f)
	}
	if !slices.ContainsFunc(v.Precisions, func(p schema.PrecisionThroughput) bool { return p.InputType == "fp64" }) {
		t.Error("the raw-Vulkan fp64 figure went with the ALU probe's")
	}
	scratch.NotMeasured = []schema.Omission{{Field: "thermal.time_to_throttle_s", Reason: "did not throttle during the 2 s soak"}}
	v.NotMeasured = []schema.Omission{{Field: "thermal.time_to_throttle_s", Reason: "old"}, {Field: "environment.ambient_c", Reason: "x"}}
	replaceFigures("webgpu-soak", nil, scratch, v)
	if len(v.NotMeasured) != 2 || v.NotMeasured[1].Reason != "did not throttle during the 2 s soak" || v.Thermal != scratch.Thermal {
		t.Errorf("soak replaced: %+v", v.NotMeasured)
	}
	// The vendor library's GEMM soak replaces the thermal section alike.
	gemm := &schema.CapabilityVector{Thermal: &schema.ThermalEnvelope{Workload: "gemm bf16 8192x8192x8192"},
		NotMeasured: []schema.Omission{{Field: "thermal.time_to_throttle_s", Reason: "did not throttle during the 120 s soak"}}}
	replaceFigures("cuda-cublaslt-soak", nil, gemm, v)
	if len(v.NotMeasured) != 2 || v.NotMeasured[1].Reason != "did not throttle during the 120 s soak" || v.Thermal != gemm.Thermal {
		t.Errorf("GEMM soak replaced: %+v", v.NotMeasured)
	}

	// Parts: the int32 ALU kernel, the int32 roofline sweep, the copy kernel.
	v = quietH200()
	v.Memory.Bandwidth = append(v.Memory.Bandwidth, schema.Bandwidth{Kernel: "triad", Probe: "webgpu-stream", BytesPerS: schema.Stat{Median: 7}})
	part := figuresVector(1, 36e12, 1, 1, 1, 30e12, 3e12, 5e12)
	part.Precisions = part.Precisions[1:2]
	part.Roofline = part.Roofline[1:]
	replaceFigures("webgpu-alu", []string{"int32-mad"}, part, v)
	replaceFigures("webgpu-roofline", []string{"mad.int32"}, part, v)
	replaceFigures("webgpu-stream", []string{"copy"}, part, v)
	fp32, _ := precisionOf("fma", "fp32")(v)
	int32, _ := precisionOf("mad", "int32")(v)
	copyBW, _ := copyOf(v)
	if fp32 != 64.7e12 || int32 != 36e12 || len(v.Precisions) != 3 || copyBW != 5e12 || len(v.Memory.Bandwidth) != 2 {
		t.Errorf("after the parts: fp32 %g, int32 %g (%d precisions), copy %g (%d kernels)", fp32, int32, len(v.Precisions), copyBW, len(v.Memory.Bandwidth))
	}
	if len(v.Roofline) != 2 || v.Roofline[0].Precision != "fma.fp32" || v.Roofline[0].PeakOpsPerS != 53.1e12 || v.Roofline[1].PeakOpsPerS != 30e12 {
		t.Errorf("roofline after its int32 sweep: %+v", v.Roofline)
	}
}

// TestSoakTooShortIsNotMeasured: a soak whose pieces ran so long that too
// few finished to judge leaves thermal absent with the reason, instead of
// failing the appraisal; a re-run soak that judges replaces that reason.
func TestSoakTooShortIsNotMeasured(t *testing.T) {
	soaked := func(n int) *schema.CapabilityVector {
		s := thermal.Soak{Workload: "fp32-fma", Probe: (gpu.SoakProbe{}).Name()}
		for i := 1; i <= n; i++ {
			s.Points = append(s.Points, thermal.Point{At: time.Duration(i) * 700 * time.Millisecond, OpsPerS: 5e10})
		}
		s.Duration = s.Points[n-1].At
		th, absent, err := thermal.Card(s, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		v := &schema.CapabilityVector{Memory: &schema.Memory{}}
		if err := add(v, &probe.Contribution{Thermal: th, NotMeasured: absent}); err != nil {
			t.Fatal(err)
		}
		return v
	}
	v := soaked(3)
	if v.Thermal != nil || len(v.NotMeasured) != 1 || v.NotMeasured[0].Field != "thermal" || !strings.Contains(v.NotMeasured[0].Reason, "3 pieces") {
		t.Fatalf("thermal %+v, not measured %+v", v.Thermal, v.NotMeasured)
	}
	replaceFigures((gpu.SoakProbe{}).Name(), nil, soaked(14), v)
	if v.Thermal == nil || slices.ContainsFunc(v.NotMeasured, func(o schema.Omission) bool { return o.Field == "thermal" }) {
		t.Fatalf("after a judged re-run: thermal %+v, not measured %+v", v.Thermal, v.NotMeasured)
	}
}

// TestRemeasurerSaysWhy: before it measures anything again the settle
// pass names each disagreeing rule with its ratio and band, as a stage
// line (the card keeps only the checks after it), then runs the table's
// re-measure of the parts named, and nothing else.
func TestRemeasurerSaysWhy(t *testing.T) {
	v := quietH200()
	v.Roofline[1].PeakOpsPerS = 0.3 * v.Precisions[1].OpsPerS.Median
	var stages []string
	w := newWorker("0000:01:00.0", Options{Progress: func(dev, stage string) { stages = append(stages, dev+": "+stage) }})
	var disagreeing []schema.ConsistencyCheck
	for _, c := range checkConsistency(consistencyRules(), v) {
		if !c.Agrees {
			disagreeing = append(disagreeing, c)
		}
	}
	var ran []string
	r := &deviceRun{w: w, v: v, again: []againAction{
		{"webgpu-alu", func() string { return "webgpu-alu" }, func(_ context.Context, items []string) error { ran = append(ran, "alu"); return nil }},
		{"webgpu-roofline", func() string { return "webgpu-roofline" }, func(_ context.Context, items []string) error {
			ran = append(ran, "roofline "+strings.Join(items, " "))
			return nil
		}},
	}}
	if err := r.remeasure(context.Background())([]figureSource{srcRoofInt32}, disagreeing); err != nil {
		t.Fatal(err)
	}
	if len(stages) != 2 || !strings.HasPrefix(stages[0], "0000:01:00.0: consistency: disagreeing: ") ||
		!strings.Contains(stages[0], "roofline-compute-int32 0.300 outside [") || strings.Contains(stages[0], "fp32") ||
		stages[1] != "0000:01:00.0: consistency: webgpu-roofline mad.int32 again" {
		t.Errorf("stages %q", stages)
	}
	if !slices.Equal(ran, []string{"roofline mad.int32"}) {
		t.Errorf("ran %q, want the int32 sweep alone", ran)
	}
}

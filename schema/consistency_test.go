package schema_test

import (
	"strings"
	"testing"

	"github.com/everycycle/appraise/schema"
)

// consistency is an fp32 FMA figure held against the soak's cold rate
// under a ±10 % band, with value and other value as given.
func consistency(value, other float64) schema.ConsistencyCheck {
	c := schema.ConsistencyCheck{Rule: "alu-vs-soak-cold", Figure: "precision.fma.fp32", OtherFigure: "thermal.cold_ops_per_s",
		Value: value, OtherValue: other, Unit: "ops/s", Ratio: value / other, MinRatio: 0.9, MaxRatio: 1.1}
	c.Agrees = c.Within()
	return c
}

// TestConsistencyRules: a GPU's card signs only agreeing checks; a
// software adapter's card may carry a disagreement; a verdict or ratio
// that does not follow from the values is refused either way.
func TestConsistencyRules(t *testing.T) {
	lied := consistency(49.9e9, 93.8e9)
	lied.Agrees = true
	wrongRatio := consistency(50e9, 50e9)
	wrongRatio.Ratio = 1.05
	for _, tc := range []struct {
		name     string
		software bool
		check    schema.ConsistencyCheck
		want     string // "" for valid
	}{
		{"gpu agrees", false, consistency(50e9, 51e9), ""},
		{"gpu disagrees", false, consistency(49.9e9, 93.8e9), "not a software adapter"},
		{"software disagrees, recorded", true, consistency(49.9e9, 93.8e9), ""},
		{"verdict contradicts the values", true, lied, "agrees is true but ratio"},
		{"ratio not value over other", true, wrongRatio, "is not"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := exampleCard(strings.Repeat("ab", 32))
			p.Capability.Identity.Software = tc.software
			p.Capability.Consistency = []schema.ConsistencyCheck{tc.check}
			err := schema.Validate(p)
			if tc.want == "" && err != nil {
				t.Fatalf("Validate = %v, want valid", err)
			}
			if tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)) {
				t.Fatalf("Validate = %v, want an error mentioning %q", err, tc.want)
			}
		})
	}
}

// TestDisagreements: a vector's disagreeing checks, in its order, and
// none of those that agree.
func TestDisagreements(t *testing.T) {
	a, b, ok := consistency(49.9e9, 93.8e9), consistency(120e9, 93.8e9), consistency(50e9, 51e9)
	a.Rule, b.Rule = "first", "second"
	v := schema.CapabilityVector{Consistency: []schema.ConsistencyCheck{ok, a, ok, b}}
	got := v.Disagreements()
	if len(got) != 2 || got[0].Rule != "first" || got[1].Rule != "second" {
		t.Errorf("Disagreements() = %+v, want the checks first and second", got)
	}
	if got := (schema.CapabilityVector{Consistency: []schema.ConsistencyCheck{ok}}).Disagreements(); got != nil {
		t.Errorf("all agree: %+v", got)
	}
}

// TestAtLeastMaxRatio: an at-least check with a recorded ceiling refuses
// ours above it; one without (a card written before max_ratio) keeps the
// old ceiling of twice the tool's figure.
func TestAtLeastMaxRatio(t *testing.T) {
	ceiling := 1.1
	cc := schema.CrossCheck{Tool: "mixbench", ToolVersion: "unknown", ToolFigure: "peak single", Figure: "precision.fma.fp32",
		Ours: 1.09e12, Theirs: 1e12, RelativeDelta: 0.09, Tolerance: 0.05, Rule: schema.RuleAtLeast,
		MaxRatio: &ceiling, CeilingReason: "test"}
	if !cc.Agrees() {
		t.Errorf("1.09 under a 1.1 ceiling refused")
	}
	cc.Ours, cc.RelativeDelta = 1.9e12, 0.9
	if cc.Agrees() {
		t.Errorf("1.9 over a 1.1 ceiling accepted")
	}
	if err := schema.Validate(cc); err == nil {
		t.Errorf("Validate accepted 1.9 over a 1.1 ceiling")
	}
	cc.MaxRatio, cc.CeilingReason = nil, ""
	if !cc.Agrees() {
		t.Errorf("legacy card without max_ratio: 1.9 under the old 2x ceiling refused")
	}
	cc.MaxRatio = &ceiling
	if err := schema.Validate(cc); err == nil || !strings.Contains(err.Error(), "ceiling_reason") {
		t.Errorf("a ceiling without its reason: %v", err)
	}
}

// TestUsableLimitedBy: the reason is one of the listed ones and needs
// the figure it explains; other processes need the processes listed.
func TestUsableLimitedBy(t *testing.T) {
	p := exampleCard(strings.Repeat("ab", 32))
	p.Capability.Memory.UsableLimitedBy = "memory-limit"
	if err := schema.Validate(p); err == nil || !strings.Contains(err.Error(), "usable_limited_by") {
		t.Errorf("a reason without usable_bytes: %v", err)
	}
	n := uint64(1 << 30)
	p.Capability.Memory.UsableBytes = &n
	var kept []schema.Omission
	for _, o := range p.Capability.NotMeasured {
		if o.Field != "memory.usable_bytes" {
			kept = append(kept, o)
		}
	}
	p.Capability.NotMeasured = kept
	if err := schema.Validate(p); err != nil {
		t.Errorf("memory-limit: %v", err)
	}
	p.Capability.Memory.UsableLimitedBy = "vibes"
	if err := schema.Validate(p); err == nil {
		t.Errorf("an unlisted reason accepted")
	}
	p.Capability.Memory.UsableLimitedBy = schema.UsableOtherProcesses
	if err := schema.Validate(p); err == nil || !strings.Contains(err.Error(), "shared_use lists no process") {
		t.Errorf("other processes, none listed: %v", err)
	}
	p.Capability.Environment.SharedUse = sharedWith()
	if err := schema.Validate(p); err != nil {
		t.Errorf("other processes, listed: %v", err)
	}
}

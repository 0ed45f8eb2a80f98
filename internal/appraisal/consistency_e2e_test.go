package appraisal

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/everycycle/appraise/gpu"
	"github.com/everycycle/appraise/internal/crosscheck"
	"github.com/everycycle/appraise/schema"
)

// TestSoftwareCardNeverContradictsItself appraises the software device
// end to end (quick, a 2 s soak) and asserts what holds on any machine,
// never a timing: the card carries a consistency check for every rule
// whose figures it holds, each either agreeing or recorded as a
// disagreement that was re-measured; the capacity says our cap stopped
// it; the cross-check is absent with the software adapter's reason; and
// no reason in not_measured names a part the card holds.
func TestSoftwareCardNeverContradictsItself(t *testing.T) {
	if testing.Short() {
		t.Skip("a full quick appraisal; -short skips it")
	}
	inst, err := gpu.NewInstance()
	if err != nil {
		t.Fatal(err)
	}
	defer inst.Release()
	all, _, err := Discover(inst, true, "")
	if err != nil {
		t.Fatal(err)
	}
	var devs []Candidate
	for _, c := range all {
		if c.Adapter.Software && c.Included {
			devs = append(devs, c)
			break
		}
	}
	if len(devs) == 0 {
		if os.Getenv("CI") == "true" {
			t.Fatal("CI=true but no software adapter: install mesa-vulkan-drivers")
		}
		t.Skip("no software adapter")
	}
	soak := 2 * time.Second
	// A long probe's progress (Steps) must end when the probe does: no
	// probe-level stage starts while another probe's progress is open.
	var mu sync.Mutex
	open := map[string]bool{}
	var stale []string
	// The plan printed for these options is what the run does: every
	// planned WebGPU probe is on the card, and what the plan skips up
	// front the card skips too.
	plans, err := Plan(context.Background(), devs, Options{Quick: true, Soak: &soak, CrossCheck: &crosscheck.Config{Tolerance: crosscheck.DefaultTolerance}})
	if err != nil {
		t.Fatal(err)
	}
	run, err := Appraise(context.Background(), inst, devs, devs, Options{Quick: true, Soak: &soak, Version: "test",
		CrossCheck: &crosscheck.Config{Tolerance: crosscheck.DefaultTolerance},
		// Stages go to stderr as they start, so a crash names its stage.
		Progress: func(dev, stage string) {
			fmt.Fprintf(os.Stderr, "stage %s: %s\n", dev, stage)
			mu.Lock()
			defer mu.Unlock()
			if strings.HasPrefix(stage, "webgpu-") || strings.HasPrefix(stage, "vulkan: ") || strings.HasPrefix(stage, "consistency") {
				for o := range open {
					if o != stage {
						stale = append(stale, o+" still open at "+stage)
					}
				}
			}
		},
		Steps: func(dev, stage string, done, total float64) {
			mu.Lock()
			defer mu.Unlock()
			open[stage] = done < total
			if done >= total {
				delete(open, stage)
			}
		}})
	if err != nil {
		t.Fatal(err)
	}
	if len(stale) > 0 || len(open) > 0 {
		t.Errorf("progress left open: %q; at the end %v", stale, open)
	}
	v := run.Cards[0].Capability
	if err := schema.Validate(v); err != nil {
		t.Fatal(err)
	}
	probed := map[string]bool{}
	for _, p := range v.Probes {
		probed[p.Name] = true
	}
	for _, name := range append(plans[0].WebGPU, "webgpu-soak") {
		if !probed[name] {
			t.Errorf("the plan runs %s but the card has no figure of it (probes %v)", name, v.Probes)
		}
	}
	for _, sk := range plans[0].Skipped {
		if !slices.Contains(v.Skipped, sk) {
			t.Errorf("the plan skips %+v but the card does not say so (%+v)", sk, v.Skipped)
		}
	}
	rules := map[string]bool{}
	for _, c := range v.Consistency {
		rules[c.Rule] = true
		if c.Agrees != c.Within() || (!c.Agrees && !c.Remeasured) {
			t.Errorf("%+v", c)
		}
	}
	for _, r := range consistencyRules() {
		a, okA := r.value(&v)
		b, okB := r.otherValue(&v)
		if okA && okB && a > 0 && b > 0 && !rules[r.name] {
			t.Errorf("rule %s applies but is not in the card", r.name)
		}
	}
	if len(v.Consistency) == 0 {
		t.Error("no consistency check recorded")
	}
	if v.Memory == nil || v.Memory.UsableLimitedBy != "memory-limit" {
		t.Errorf("usable memory of a software adapter: %+v", v.Memory)
	}
	for _, o := range v.NotMeasured {
		if o.Field == "cross_checks" && !strings.Contains(o.Reason, "software adapter") {
			t.Errorf("cross_checks: %q", o.Reason)
		}
		if o.Field == "roofline" {
			t.Errorf("roofline listed as not measured: %q", o.Reason)
		}
	}
}

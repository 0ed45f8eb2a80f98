package gpu

import (
	"strings"
	"testing"

	"github.com/everycycle/appraise/schema"
)

// TestRooflineContribution: the roofline is absent only when its probe
// ran and swept nothing, with that reason; a sweep is recorded under the
// probe's name with its check.
func TestRooflineContribution(t *testing.T) {
	c, err := rooflineContribution(nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Roofline) != 0 || len(c.NotMeasured) != 1 || c.NotMeasured[0].Field != "roofline" || !strings.Contains(c.NotMeasured[0].Reason, "returned no precision") {
		t.Fatalf("empty sweep: %+v", c)
	}
	r := RooflineResult{Precision: "fma.fp32", Timing: schema.TimingGPUTimestamp, Checked: 1}
	for i, in := range []float64{0.25, 1, 4, 16, 64} {
		r.Points = append(r.Points, RooflinePoint{Intensity: in, OpsPerS: min(in*1e11, 1e12), Iters: uint32(1 << i)})
	}
	c, err = rooflineContribution([]RooflineResult{r})
	if err != nil {
		t.Fatal(err)
	}
	if len(c.NotMeasured) != 0 || len(c.Roofline) != 1 || c.Roofline[0].Probe != "webgpu-roofline" || !c.Roofline[0].Check.Passed {
		t.Fatalf("a sweep: %+v", c)
	}
	if err := schema.Validate(c.Roofline[0]); err != nil {
		t.Error(err)
	}
}

// TestUsableLimitedBy: every reason the capacity probe can stop for has
// a name the schema accepts, and the cap of a software adapter reads as
// ours.
func TestUsableLimitedBy(t *testing.T) {
	n := uint64(1 << 30)
	for _, why := range []string{LimitedDriverRefused, LimitedBudget, LimitedMemoryLimit, LimitedSlowMemory, LimitedChunkCount} {
		m := schema.Memory{UsableBytes: &n, UsableLimitedBy: usableLimitedBy(why)}
		if err := schema.Validate(m); err != nil || m.UsableLimitedBy == "" {
			t.Errorf("%q → %q: %v", why, m.UsableLimitedBy, err)
		}
	}
	if got := usableLimitedBy(LimitedMemoryLimit); got != "memory-limit" {
		t.Errorf("our own cap reads as %q", got)
	}
	if got := usableLimitedBy("something else"); got != "" {
		t.Errorf("an unknown reason reads as %q", got)
	}
}

// TestIntegrityTarget: the probe tests the share of usable memory, at
// most its cap; a slice takes the share of the slice.
func TestIntegrityTarget(t *testing.T) {
	const usable = 80 << 30
	share := func(n uint64) uint64 { return uint64(float64(n) * IntegrityShare) }
	for _, tc := range []struct {
		p    IntegrityProbe
		want uint64
	}{
		{IntegrityProbe{UsableBytes: usable}, share(usable)},
		{IntegrityProbe{UsableBytes: usable, CapBytes: 256 << 20}, 256 << 20},
		{IntegrityProbe{UsableBytes: usable, SliceBytes: 32 << 20, CapBytes: 256 << 20}, share(32 << 20)},
		{IntegrityProbe{UsableBytes: 16 << 20, SliceBytes: 32 << 20, CapBytes: 256 << 20}, share(16 << 20)},
	} {
		if got := tc.p.target(); got != tc.want {
			t.Errorf("%+v: target %d, want %d", tc.p, got, tc.want)
		}
	}
}

// TestChecksOfResults: each figure's check states what its kernel's
// check compared, and a result exists only for a check that passed.
func TestChecksOfResults(t *testing.T) {
	for _, tc := range []struct {
		name string
		got  schema.Check
		kind string
	}{
		{"bandwidth, relative", BandwidthResult{Checked: 8, MaxRelError: 1e-7, Tolerance: 1e-5}.check(), "relative"},
		{"bandwidth, exact", BandwidthResult{Checked: 8}.check(), "exact"},
		{"alu", ALUResult{Checked: 8, ErrorKind: "exact"}.check(), "exact"},
		{"soak", SoakResult{Checked: 8}.check(), "exact"},
	} {
		if !tc.got.Passed || tc.got.ErrorKind != tc.kind || tc.got.Elements != 8 {
			t.Errorf("%s: %+v", tc.name, tc.got)
		}
		if err := schema.Validate(tc.got); err != nil {
			t.Errorf("%s: %v", tc.name, err)
		}
	}
}

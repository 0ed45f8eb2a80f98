package health

import (
	"strings"
	"testing"

	"github.com/everycycle/appraise/schema"
)

// vec is a recorded capability vector: bandwidth per kernel, compute per
// precision, host link, memtest errors. The figures are those of an H200
// card's quick appraisal, rounded.
func vec(bw, fp32, fp16, link float64, errs uint64) schema.CapabilityVector {
	st := func(m float64) schema.Stat { return schema.Stat{Samples: 5, Median: m, Min: m, Max: m} }
	v := schema.CapabilityVector{
		Memory: &schema.Memory{Bandwidth: []schema.Bandwidth{
			{Kernel: "copy", BytesPerS: st(3.9e12 * bw)}, {Kernel: "triad", BytesPerS: st(4.0e12 * bw)}, {Kernel: "read", BytesPerS: st(4.2e12 * bw)},
		}, Integrity: &schema.Integrity{Errors: errs, BytesTested: 256 << 20}},
		Precisions: []schema.PrecisionThroughput{
			{Operation: "fma", InputType: "fp32", AccumulatorType: "fp32", OpsPerS: st(60e12 * fp32)},
			{Operation: "fma", InputType: "fp16", AccumulatorType: "fp16", OpsPerS: st(110e12 * fp16)},
		},
		Interconnect: &schema.Interconnect{HostToDevice: &schema.Transfer{BytesPerS: st(55e9 * link)}, DeviceToHost: &schema.Transfer{BytesPerS: st(52e9 * link)}},
	}
	return v
}

func kinds(v Verdict) []string {
	var out []string
	for _, f := range v.Findings {
		out = append(out, f.Kind)
	}
	return out
}

func TestJudge(t *testing.T) {
	card := vec(1, 1, 1, 1, 0)
	for _, tc := range []struct {
		name   string
		now    schema.CapabilityVector
		bands  Bands
		status Status
		kind   string
		text   string
	}{
		{"healthy, noise within the band", vec(0.97, 1.02, 0.95, 0.9, 0), GPUBands, OK, KindWithin, "bandwidth at 97%"},
		{"faster than the card", vec(1.1, 1.2, 1.1, 1.1, 0), GPUBands, OK, KindWithin, ""},
		{"uniformly slower", vec(0.7, 0.72, 0.69, 1, 0), GPUBands, Failing, KindSlower, "a slower device"},
		{"compute-only drop", vec(0.99, 0.6, 0.98, 1, 0), GPUBands, Failing, KindDegraded, "precision.fma.fp32: compute at 60%"},
		{"bandwidth-only drop", vec(0.6, 1, 1, 1, 0), GPUBands, Failing, KindDegraded, "degraded memory"},
		{"host link halved", vec(1, 1, 1, 0.5, 0), GPUBands, Failing, KindHostLink, "interconnect.device_to_host: host link at 50%"},
		// Bandwidth and compute held: said beside the failing host link.
		{"host link halved, the rest within", vec(1, 1, 1, 0.5, 0), GPUBands, Failing, KindWithin, "bandwidth at 100% and compute at 100%"},
		{"memtest errors, the rest within", vec(1, 1, 1, 1, 3), GPUBands, Failing, KindWithin, "each within its band"},
		{"memtest errors", vec(1, 1, 1, 1, 3), GPUBands, Failing, KindMemtest, "3 wrong words"},
		// A software adapter on a busy host: everything at half, compute
		// unevenly; within its wide bands.
		{"software, busy host", vec(0.5, 0.3, 0.45, 0.4, 0), SoftwareBands, OK, KindWithin, ""},
		{"software, a kernel ten times slower", vec(0.9, 0.09, 0.9, 1, 0), SoftwareBands, Failing, KindDegraded, "precision.fma.fp32"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v := Judge(card, tc.now, tc.bands)
			if v.Status != tc.status || !contains(kinds(v), tc.kind) {
				t.Fatalf("status %v, findings %v; want %v with a %q finding", v.Status, v.Findings, tc.status, tc.kind)
			}
			if !strings.Contains(lines(v), tc.text) {
				t.Errorf("findings %q do not say %q", lines(v), tc.text)
			}
		})
	}
}

// TestJudgeMissing: a check that re-measured no bandwidth, or no compute,
// cannot say anything by the relative rule: unknown, and each figure of
// the card not re-measured is listed.
func TestJudgeMissing(t *testing.T) {
	card := vec(1, 1, 1, 1, 0)
	now := vec(1, 1, 1, 1, 0)
	now.Memory.Bandwidth = nil
	v := Judge(card, now, GPUBands)
	if v.Status != Unknown || !strings.Contains(lines(v), "no bandwidth figure") || !strings.Contains(lines(v), "memory.bandwidth.copy: not re-measured") {
		t.Errorf("no bandwidth: %v %q", v.Status, lines(v))
	}
	now = vec(1, 1, 1, 1, 0)
	now.Precisions = nil
	if v := Judge(card, now, GPUBands); v.Status != Unknown || !strings.Contains(lines(v), "no compute figure") {
		t.Errorf("no compute: %v %q", v.Status, lines(v))
	}
	if v := Judge(card, schema.CapabilityVector{}, GPUBands); v.Status != Unknown {
		t.Errorf("nothing measured: %v", v.Status)
	}
	// A failing finding outranks an unknown one.
	now = vec(1, 1, 1, 1, 2)
	now.Precisions = nil
	if v := Judge(card, now, GPUBands); v.Status != Failing {
		t.Errorf("memtest errors without compute: %v", v.Status)
	}
}

func TestBandsFor(t *testing.T) {
	if BandsFor(schema.DeviceIdentity{Software: true}) != SoftwareBands || BandsFor(schema.DeviceIdentity{}) != GPUBands {
		t.Error("BandsFor picks the wrong bands")
	}
	for _, b := range []Bands{GPUBands, SoftwareBands} {
		if b.Relative <= 0 || b.Relative >= 1 || b.Slower <= 0 || b.Slower >= 1 || b.HostLink <= 0 || b.HostLink >= 1 {
			t.Errorf("bands %+v: each floor must lie in (0, 1)", b)
		}
	}
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

func lines(v Verdict) string {
	var b strings.Builder
	for _, f := range v.Findings {
		b.WriteString(f.Message + "\n")
	}
	return b.String()
}

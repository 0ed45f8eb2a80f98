package plot

import (
	"bytes"
	"encoding/xml"
	"errors"
	"flag"
	"io"
	"os"
	"strings"
	"testing"

	"github.com/everycycle/appraise/schema"
)

var sample = flag.String("sample", "", "write the full sample card's SVG to this file")

func ptr(v float64) *float64 { return &v }

// testCard is a valid H200-like card; withRoofline and withTimeline say
// which plottable sections it has, throttleAt when it throttled (0: never).
func testCard(t *testing.T, withRoofline, withTimeline bool, throttleAt float64) *schema.CardPayload {
	t.Helper()
	chk := schema.Check{Reference: "cpu", Elements: 1 << 20, ErrorKind: "relative", MaxError: 1e-7, Tolerance: 1e-6, Passed: true}
	st := func(m float64) schema.Stat { return schema.Stat{Samples: 5, Median: m, Min: m * 0.99, Max: m * 1.01} }
	p := &schema.CardPayload{
		ReportVersion: "1", ProbedAt: "2026-11-29T20:36:03Z", BoxReport: strings.Repeat("ab", 32),
		Capability: schema.CapabilityVector{
			Precisions: []schema.PrecisionThroughput{
				{Operation: "fma", InputType: "fp32", AccumulatorType: "fp32", OpsPerS: st(64.7e12), OpCounting: "fma=2",
					Probe: "webgpu-fma", Timing: schema.TimingGPUTimestamp, Check: chk},
			},
			Identity: schema.DeviceIdentity{BusAddress: "0000:19:00.0", VendorID: "10de", DeviceID: "2335",
				Name: "NVIDIA H200", AdapterType: "discrete-gpu"},
			Environment: schema.ProbeEnvironment{DriverVersion: "580.95.05", Backend: "vulkan", RunDurationS: 90,
				ProbeSuiteVersion: "0.1.0", Mode: "full", OS: "linux", Arch: "amd64"},
			Probes: []schema.ProbeRecord{{Name: "webgpu-fma", Version: "1"}},
		},
	}
	c := &p.Capability
	if withRoofline {
		c.Roofline = []schema.RooflineRatio{
			sweep("fma.fp32", 64.7e12, 4.1e12, 1, chk),
			sweep("mad.int32", 33.1e12, 4.0e12, 0.6, chk),
		}
	}
	if withTimeline {
		c.Thermal = soak(throttleAt)
	}
	for _, f := range schema.AbsentFields(c) {
		c.NotMeasured = append(c.NotMeasured, schema.Omission{Field: f, Reason: "test"})
	}
	if err := schema.Validate(p); err != nil {
		t.Fatal(err)
	}
	return p
}

// sweep is a roofline sweep from 0.25 to 256 ops/byte whose compute
// reaches health × the model above the ridge.
func sweep(name string, peak, bw, health float64, chk schema.Check) schema.RooflineRatio {
	r := schema.RooflineRatio{Precision: name, Ratio: 0.97, RidgeRatio: 0.93, PeakOpsPerS: peak, BandwidthBytesPerS: bw,
		Probe: "webgpu-roofline", Timing: schema.TimingGPUTimestamp, Check: chk}
	for i := 0.25; i <= 256; i *= 2 {
		model := min(peak, bw*i)
		got := 0.97 * model
		if bw*i > peak {
			got = health * model
		}
		r.Points = append(r.Points, schema.RooflinePoint{IntensityOpsPerByte: i, OpsPerS: got, ModelOpsPerS: model})
	}
	return r
}

// soak is a 60 s soak in 60 steps that warms up and, after throttleAt
// seconds (when not 0), loses 15 % of its throughput.
func soak(throttleAt float64) *schema.ThermalEnvelope {
	t := &schema.ThermalEnvelope{SoakS: 60, ThrottledFraction: 1, SustainedPowerW: ptr(655), PeakTemperatureC: ptr(71),
		ColdOpsPerS: 64.5e12, SustainedOpsPerS: 64.5e12, Workload: "fp32-fma", Points: 1800, Telemetry: "nvml", Probe: "webgpu-soak"}
	for i := 1; i <= 60; i++ {
		s := float64(i)
		ops := 64.5e12
		if throttleAt > 0 && s > throttleAt {
			ops *= 0.85
		}
		t.Timeline = append(t.Timeline, schema.ThermalStep{AtS: s, OpsPerS: ops,
			TemperatureC: ptr(40 + 31*s/60), PowerW: ptr(650 + float64(i%5))})
	}
	if throttleAt > 0 {
		t.Throttled, t.TimeToThrottleS = true, ptr(throttleAt)
		t.SustainedOpsPerS, t.ThrottledFraction = 0.85*64.5e12, 0.85
	}
	return t
}

// texts checks that svg is well-formed XML with an <svg> root and no
// <text> element (text is drawn as outlines, so it needs no font on the
// viewer's machine), and returns the words of each outlined string, which
// its group keeps in aria-label.
func texts(t *testing.T, svg []byte) []string {
	t.Helper()
	d := xml.NewDecoder(bytes.NewReader(svg))
	var out []string
	var root string
	for {
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("SVG is not well-formed XML: %v", err)
		}
		el, ok := tok.(xml.StartElement)
		if !ok {
			continue
		}
		if root == "" {
			root = el.Name.Local
		}
		if el.Name.Local == "text" {
			t.Errorf("SVG has a <text> element: its look would depend on the viewer's fonts")
		}
		for _, a := range el.Attr {
			if a.Name.Local == "aria-label" {
				out = append(out, a.Value)
			}
		}
	}
	if root != "svg" {
		t.Fatalf("root element is %q, want svg", root)
	}
	return out
}

func wantTexts(t *testing.T, got []string, want ...string) {
	t.Helper()
	all := strings.Join(got, "\n")
	for _, w := range want {
		if !strings.Contains(all, w) {
			t.Errorf("SVG has no text %q; texts:\n%s", w, all)
		}
	}
}

func TestCardRooflineAndTimeline(t *testing.T) {
	svg, err := Card(testCard(t, true, true, 30))
	if err != nil {
		t.Fatal(err)
	}
	if *sample != "" {
		if err := os.WriteFile(*sample, svg, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	wantTexts(t, texts(t, svg),
		"NVIDIA H200 · 0000:19:00.0 · probed 2026-11-29T20:36:03Z",
		"signed card payload sha256 ",
		"Roofline: achieved ops/s against min(peak, bandwidth × intensity)",
		"fma.fp32 measured: median ratio 0.970, at the ridge 0.930",
		"fma.fp32 model: peak 64.7 Tops/s, bandwidth 4.1 TB/s, ridge at 15.8 ops/B",
		"fma.fp32 signed figure (fma=2): 64.7 Tops/s",
		"mad.int32 measured",
		"Thermal timeline: fp32-fma for 60 s, throttled after 30.0 s (sustained ÷ cold 0.850)",
		"throttled at 30.0 s (signed)",
		"Board temperature (telemetry: nvml)", "peak 71 °C (signed)",
		"Board power (telemetry: nvml)", "median 655 W over the soak (signed)",
	)
}

func TestCardTimelineOnly(t *testing.T) {
	svg, err := Card(testCard(t, false, true, 0))
	if err != nil {
		t.Fatal(err)
	}
	got := texts(t, svg)
	wantTexts(t, got, "did not throttle", "cold 64.5 Tops/s (signed)")
	if strings.Contains(strings.Join(got, "\n"), "Roofline") {
		t.Error("a card without a roofline got a roofline panel")
	}
}

func TestCardRooflineOnly(t *testing.T) {
	svg, err := Card(testCard(t, true, false, 0))
	if err != nil {
		t.Fatal(err)
	}
	got := texts(t, svg)
	wantTexts(t, got, "Roofline", "mad.int32 model: peak 33.1 Tops/s")
	if strings.Contains(strings.Join(got, "\n"), "mad.int32 signed") {
		t.Error("a precision without a signed figure got one")
	}
	if strings.Contains(strings.Join(got, "\n"), "Thermal") {
		t.Error("a card without a timeline got a thermal panel")
	}
}

func TestCardNothingToPlot(t *testing.T) {
	p := testCard(t, false, false, 0)
	if _, err := Card(p); !errors.Is(err, ErrNothingToPlot) {
		t.Fatalf("got %v, want ErrNothingToPlot", err)
	}
	// A thermal envelope without a timeline has nothing to draw either.
	p.Capability.Thermal = soak(0)
	p.Capability.Thermal.Timeline = nil
	p.Capability.NotMeasured = nil
	for _, f := range schema.AbsentFields(&p.Capability) {
		p.Capability.NotMeasured = append(p.Capability.NotMeasured, schema.Omission{Field: f, Reason: "test"})
	}
	if _, err := Card(p); !errors.Is(err, ErrNothingToPlot) {
		t.Fatalf("thermal without a timeline: got %v, want ErrNothingToPlot", err)
	}
}

func TestCardInvalid(t *testing.T) {
	p := testCard(t, true, false, 0)
	p.Capability.Roofline[0].PeakOpsPerS = 0
	if _, err := Card(p); !errors.Is(err, schema.ErrInvalid) {
		t.Fatalf("got %v, want schema.ErrInvalid", err)
	}
}

func TestSI(t *testing.T) {
	for _, c := range []struct {
		v    float64
		unit string
		want string
	}{
		{64.7e12, "ops/s", "64.7 Tops/s"}, {4.1e12, "B/s", "4.1 TB/s"}, {0.25, "", "0.25"},
		{640, "W", "640 W"}, {1500, "", "1.5 k"}, {1e18, "ops/s", "1 Eops/s"}, {2e21, "", "2e+03 E"},
	} {
		if got := si(c.v, c.unit); got != c.want {
			t.Errorf("si(%g, %q) = %q, want %q", c.v, c.unit, got, c.want)
		}
	}
}

// Matrix sweeps ("gemm.…", from the vendor-library probe) get a panel of
// their own below the vector one, each with its legend.
func TestCardMatrixRoofline(t *testing.T) {
	p := testCard(t, true, true, 0)
	chk := p.Capability.Roofline[0].Check
	m := sweep("gemm.bf16", 690e12, 4.4e12, 1, chk)
	m.Probe = "cuda-cublaslt"
	p.Capability.Roofline = append(p.Capability.Roofline, m)
	p.Capability.Thermal.PowerLimitW, p.Capability.Thermal.PowerLimitFraction = ptr(700), ptr(655.0/700)
	if err := schema.Validate(p); err != nil {
		t.Fatal(err)
	}
	svg, err := Card(p)
	if err != nil {
		t.Fatal(err)
	}
	got := texts(t, svg)
	wantTexts(t, got, "Roofline: achieved ops/s against min(peak, bandwidth × intensity)",
		"Matrix roofline: GEMMs with K swept, against min(peak, bandwidth × intensity)",
		"bf16: median ratio 0.970 (ridge 0.930), peak 690 Tops/s, bandwidth 4.4 TB/s", "fma.fp32 measured: median ratio 0.970, at the ridge 0.930",
		"power limit 700 W, the load drew 0.94 of it (signed)")
}

package main

import (
	"crypto/ed25519"
	"crypto/sha256"
	"os"
	"path/filepath"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/everycycle/appraise/schema"
)

// fixtureSigner is a fixed test key for reports made without a GPU.
type fixtureSigner struct{ priv ed25519.PrivateKey }

func (s fixtureSigner) Sign(m []byte) []byte      { return ed25519.Sign(s.priv, m) }
func (s fixtureSigner) Public() ed25519.PublicKey { return s.priv.Public().(ed25519.PublicKey) }
func (s fixtureSigner) Tenant() string            { return "fixture" }

// writeFixtures puts signed reports into the script's work directory:
// fixtures/a (box + card), fixtures/b (same environment, other figures),
// fixtures/c (another driver version), fixtures/plot (a card with a
// roofline and a soak timeline), fixtures/disagree (a software adapter's
// run whose card was signed with a consistency check that disagrees),
// the example reports of docs/example and docs/archive/2026-11 in
// example/, example-h200/, example-h200x2/, example-h200-crosscheck/ and
// example-h200-bench/ (and docs/example/ again under its own path, for the
// README's tour),
// and in h200-lost-card/ the output of a real
// two-H200 run whose second card overwrote the first (both were named
// after the same VBIOS hash), which verify must refuse as a run.
func writeFixtures(e *testscript.Env) error {
	for _, d := range []string{"../../docs/example", "../../docs/archive/2026-11/example-h200", "../../docs/archive/2026-11/example-h200x2", "../../docs/archive/2026-11/example-h200-crosscheck", "../../docs/archive/2026-11/example-h200-bench", "testdata/h200-lost-card"} {
		if err := copyDir(d, filepath.Join(e.WorkDir, filepath.Base(d))); err != nil {
			return err
		}
	}
	// The README's tour compares a card with docs/example's, by that path.
	if err := copyDir("../../docs/example", filepath.Join(e.WorkDir, "docs", "example")); err != nil {
		return err
	}
	seed := sha256.Sum256([]byte("fixture"))
	s := fixtureSigner{ed25519.NewKeyFromSeed(seed[:])}
	for _, f := range []struct {
		dir    string
		driver string
		scale  float64
	}{{"a", "580.159.04", 1}, {"b", "580.159.04", 1.1}, {"c", "575.57.08", 1}} {
		if err := writeSignedPair(filepath.Join(e.WorkDir, "fixtures", f.dir), s, f.driver, f.scale); err != nil {
			return err
		}
	}
	if err := writeDisagreeFixture(e.WorkDir, s); err != nil {
		return err
	}
	return writePlotFixture(e.WorkDir, s)
}

// writeSignedPair writes a fixture box and a card linked to it, both
// signed by s, into dir.
func writeSignedPair(dir string, s schema.Signer, driver string, scale float64) error {
	boxFile, hash, err := schema.SignBox(fixtureBox(driver), s)
	if err != nil {
		return err
	}
	card, err := schema.SignCard(fixtureCard(hash, driver, scale), s)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "box-"+hash[:12]+".appraisal.json"), boxFile, 0o644); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "card-0000-01-00.0.appraisal.json"), card, 0o644)
}

func fixtureBox(driver string) schema.BoxPayload {
	return schema.BoxPayload{
		ReportVersion: "1", ProbedAt: "2026-06-20T18:23:11Z",
		Host:              schema.Host{Hostname: "astra", CPUModel: "arm64 implementer 0x41 part 0xd0c", OS: "linux", Arch: "arm64", LogicalCPUs: 80},
		PresentDevices:    []string{"0000:01:00.0"},
		DriverVersions:    []schema.DriverBinding{{BusAddress: "0000:01:00.0", DriverVersion: driver}},
		ProbeSuiteVersion: "0.1.0",
		NotMeasured:       []schema.Omission{{Field: "ambient_c", Reason: "fixture"}, {Field: "host_baseline", Reason: "fixture"}},
	}
}

func fixtureCard(boxHash, driver string, scale float64) schema.CardPayload {
	st := func(m float64) schema.Stat { return schema.Stat{Samples: 5, Median: m, Min: m * 0.99, Max: m * 1.01} }
	chk := schema.Check{Reference: "cpu", Elements: 1 << 20, ErrorKind: "relative", Tolerance: 1e-6, Passed: true}
	bw := func(k string, bpe int) schema.Bandwidth {
		return schema.Bandwidth{Kernel: k, BytesPerS: st(8e11 * scale), ArrayBytes: 1 << 30, BytesPerElement: bpe, Probe: "webgpu-stream", Timing: schema.TimingGPUTimestamp, Check: chk}
	}
	return schema.CardPayload{
		ReportVersion: "1", ProbedAt: "2026-06-20T18:23:11Z", BoxReport: boxHash,
		Capability: schema.CapabilityVector{
			Memory: &schema.Memory{Bandwidth: []schema.Bandwidth{bw("read", 16), bw("copy", 32)}},
			LaunchOverhead: &schema.LaunchOverhead{EmptyDispatchS: st(2e-5 / scale), Upload1MiBS: st(5e-5 / scale),
				Probe: "webgpu-launch", Timing: schema.TimingHostWallClock, Check: chk},
			Identity: schema.DeviceIdentity{BusAddress: "0000:01:00.0", VendorID: "10de", DeviceID: "2c05", Name: "fixture GPU", AdapterType: "discrete-gpu"},
			Environment: schema.ProbeEnvironment{DriverVersion: driver, Backend: "vulkan", RunDurationS: 10, ProbeSuiteVersion: "0.1.0",
				Mode: "quick", OS: "linux", Arch: "arm64"},
			Probes: []schema.ProbeRecord{{Name: "webgpu-stream", Version: "1"}, {Name: "webgpu-launch", Version: "1"}},
			NotMeasured: []schema.Omission{
				{Field: "precisions", Reason: "fixture"}, {Field: "interconnect", Reason: "fixture"},
				{Field: "thermal", Reason: "fixture"}, {Field: "roofline", Reason: "fixture"}, {Field: "cross_checks", Reason: "fixture"},
				{Field: "identity.vbios_hash", Reason: "fixture"}, {Field: "identity.serial", Reason: "fixture"}, {Field: "identity.uuid", Reason: "fixture"},
				{Field: "environment.ambient_c", Reason: "fixture"}, {Field: "memory.physical_bytes", Reason: "fixture"},
				{Field: "memory.usable_bytes", Reason: "fixture"}, {Field: "memory.integrity", Reason: "fixture"},
			},
		},
	}
}

// writePlotFixture writes fixtures/plot: a box and a card with a roofline
// sweep and a soak timeline, for plot.
func writePlotFixture(work string, s fixtureSigner) error {
	boxFile, hash, err := schema.SignBox(fixtureBox("580.159.04"), s)
	if err != nil {
		return err
	}
	card, err := schema.SignCard(fixturePlotCard(hash), s)
	if err != nil {
		return err
	}
	dir := filepath.Join(work, "fixtures", "plot")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "box-"+hash[:12]+".appraisal.json"), boxFile, 0o644); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "card-0000-01-00.0.appraisal.json"), card, 0o644)
}

// fixturePlotCard is fixture a's card plus an fma.fp32 figure, its
// roofline sweep (peak 2e13 ops/s, bandwidth 8e11 bytes/s) and a 40 s
// soak that did not throttle, with temperature and power.
func fixturePlotCard(boxHash string) schema.CardPayload {
	p := fixtureCard(boxHash, "580.159.04", 1)
	c := &p.Capability
	chk := schema.Check{Reference: "cpu", Elements: 1 << 20, ErrorKind: "relative", Tolerance: 1e-6, Passed: true}
	c.Precisions = []schema.PrecisionThroughput{{Operation: "fma", InputType: "fp32", AccumulatorType: "fp32",
		OpsPerS: schema.Stat{Samples: 5, Median: 2e13, Min: 1.98e13, Max: 2.02e13}, OpCounting: "fma=2",
		Probe: "webgpu-fma", Timing: schema.TimingGPUTimestamp, Check: chk}}
	roof := schema.RooflineRatio{Precision: "fma.fp32", Ratio: 0.96, RidgeRatio: 0.92, PeakOpsPerS: 2e13,
		BandwidthBytesPerS: 8e11, Probe: "webgpu-roofline", Timing: schema.TimingGPUTimestamp, Check: chk}
	for _, i := range []float64{1, 4, 16, 64, 256} {
		model := min(2e13, 8e11*i)
		roof.Points = append(roof.Points, schema.RooflinePoint{IntensityOpsPerByte: i, OpsPerS: 0.96 * model, ModelOpsPerS: model})
	}
	c.Roofline = []schema.RooflineRatio{roof}
	temp, power := 62.0, 280.0
	c.Thermal = &schema.ThermalEnvelope{SoakS: 40, ThrottledFraction: 0.99, SustainedPowerW: &power, PeakTemperatureC: &temp,
		ColdOpsPerS: 1.9e13, SustainedOpsPerS: 1.88e13, Workload: "fp32-fma", Points: 400, Telemetry: "nvml", Probe: "webgpu-soak"}
	for i := 1; i <= 8; i++ {
		t, w := 40+float64(i)*2.75, 270+float64(i%3)*5
		c.Thermal.Timeline = append(c.Thermal.Timeline, schema.ThermalStep{AtS: float64(i) * 5, OpsPerS: 1.9e13 - float64(i)*2.5e10, TemperatureC: &t, PowerW: &w})
	}
	c.Probes = append(c.Probes, schema.ProbeRecord{Name: "webgpu-fma", Version: "1"},
		schema.ProbeRecord{Name: "webgpu-roofline", Version: "1"}, schema.ProbeRecord{Name: "webgpu-soak", Version: "1"})
	c.NotMeasured = nil
	for _, f := range schema.AbsentFields(c) {
		c.NotMeasured = append(c.NotMeasured, schema.Omission{Field: f, Reason: "fixture"})
	}
	return p
}

// writeDisagreeFixture writes fixtures/disagree: a software adapter's box
// and card (fixtureDisagreeCard), signed by s.
func writeDisagreeFixture(work string, s fixtureSigner) error {
	boxFile, hash, err := schema.SignBox(fixtureSoftwareBox(), s)
	if err != nil {
		return err
	}
	card, err := schema.SignCard(fixtureDisagreeCard(hash), s)
	if err != nil {
		return err
	}
	dir := filepath.Join(work, "fixtures", "disagree")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "box-"+hash[:12]+".appraisal.json"), boxFile, 0o644); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "card-software-0.appraisal.json"), card, 0o644)
}

// fixtureSoftwareBox is fixtureBox for a run of one software adapter.
func fixtureSoftwareBox() schema.BoxPayload {
	b := fixtureBox("Mesa 22.3.6 (LLVM 15.0.6)")
	b.PresentDevices = []string{"software-0"}
	b.DriverVersions[0].BusAddress = "software-0"
	return b
}

// fixtureDisagreeCard is fixture a's card as a software adapter's, copy
// at 9.1 GB/s, with two consistency checks: roofline-memory-int32, which
// agrees, and roofline-memory-fp32, which still disagreed after its
// re-measure (the roofline's fp32 memory roof at 5.2 GB/s, a ratio of
// 0.571 against the band 1/1.15 … 1.15), as a software adapter's card may
// be signed.
func fixtureDisagreeCard(boxHash string) schema.CardPayload {
	p := fixtureCard(boxHash, "Mesa 22.3.6 (LLVM 15.0.6)", 1)
	c := &p.Capability
	c.Identity = schema.DeviceIdentity{VendorID: "10005", DeviceID: "0000", Name: "llvmpipe (LLVM 15.0.6, 256 bits)", AdapterType: "cpu", Software: true}
	copyBW := 9.1e9
	c.Memory.Bandwidth[1].BytesPerS = schema.Stat{Samples: 5, Median: copyBW, Min: 0.98 * copyBW, Max: 1.02 * copyBW}
	check := func(rule, figure string, v float64, remeasured bool) schema.ConsistencyCheck {
		k := schema.ConsistencyCheck{Rule: rule, Figure: figure, OtherFigure: "memory.bandwidth.copy", Value: v, OtherValue: copyBW,
			Unit: "bytes/s", Ratio: v / copyBW, MinRatio: 1 / 1.15, MaxRatio: 1.15, Remeasured: remeasured}
		k.Agrees = k.Within()
		return k
	}
	c.Consistency = []schema.ConsistencyCheck{
		check("roofline-memory-fp32", "roofline.fma.fp32.bandwidth_bytes_per_s", 5.2e9, true),
		check("roofline-memory-int32", "roofline.mad.int32.bandwidth_bytes_per_s", 8.6e9, true),
	}
	c.NotMeasured = nil
	for _, f := range schema.AbsentFields(c) {
		c.NotMeasured = append(c.NotMeasured, schema.Omission{Field: f, Reason: "fixture"})
	}
	return p
}

func copyDir(from, to string) error {
	if err := os.MkdirAll(to, 0o755); err != nil {
		return err
	}
	entries, err := os.ReadDir(from)
	if err != nil {
		return err
	}
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(from, e.Name()))
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(to, e.Name()), b, 0o644); err != nil {
			return err
		}
	}
	return nil
}

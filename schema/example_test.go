package schema_test

import (
	"crypto/ed25519"
	"crypto/sha256"

	"github.com/everycycle/appraise/schema"
)

// testSigner is a fixed Ed25519 key for tests.
type testSigner struct{ priv ed25519.PrivateKey }

func newTestSigner(seed string) testSigner {
	s := sha256.Sum256([]byte(seed))
	return testSigner{ed25519.NewKeyFromSeed(s[:])}
}

func (s testSigner) Sign(msg []byte) []byte    { return ed25519.Sign(s.priv, msg) }
func (s testSigner) Public() ed25519.PublicKey { return s.priv.Public().(ed25519.PublicKey) }
func (s testSigner) Tenant() string            { return "tailoredmachines" }

func ptr[T any](v T) *T { return &v }

func stat(median float64) schema.Stat {
	return schema.Stat{Samples: 5, Median: median, Min: median * 0.98, Max: median * 1.01}
}

func check() schema.Check {
	return schema.Check{Reference: "cpu", Elements: 1 << 20, ErrorKind: "relative", Tolerance: 1e-6, Passed: true}
}

func exampleBox() schema.BoxPayload {
	return schema.BoxPayload{
		ReportVersion:     "1",
		ProbedAt:          "2026-06-20T18:23:11Z",
		Host:              schema.Host{Hostname: "astra", CPUModel: "Neoverse-N1", OS: "linux", Arch: "arm64", LogicalCPUs: 80},
		PresentDevices:    []string{"0000:01:00.0"},
		DriverVersions:    []schema.DriverBinding{{BusAddress: "0000:01:00.0", DriverVersion: "580.159.04"}},
		ProbeSuiteVersion: "0.1.0",
		NotMeasured:       []schema.Omission{{Field: "ambient_c", Reason: "no inlet sensor and no --ambient-c"}, {Field: "host_baseline", Reason: "not probed in this run"}},
	}
}

func exampleCard(boxHash string) schema.CardPayload {
	bw := func(kernel string, bpe int, median float64) schema.Bandwidth {
		return schema.Bandwidth{Kernel: kernel, BytesPerS: stat(median), ArrayBytes: 1 << 30, BytesPerElement: bpe,
			Probe: "webgpu-stream", Timing: schema.TimingGPUTimestamp, Check: check()}
	}
	return schema.CardPayload{
		ReportVersion: "1",
		ProbedAt:      "2026-06-20T18:23:11Z",
		BoxReport:     boxHash,
		Capability: schema.CapabilityVector{
			Memory: &schema.Memory{
				PhysicalBytes: ptr(uint64(16 << 30)),
				Bandwidth:     []schema.Bandwidth{bw("read", 4, 8.1e11), bw("write", 4, 8.3e11), bw("copy", 8, 7.9e11), bw("triad", 12, 8.0e11)},
			},
			LaunchOverhead: &schema.LaunchOverhead{
				EmptyDispatchS: stat(1.5e-5), Upload1MiBS: stat(4e-5),
				Probe: "webgpu-launch", Timing: schema.TimingHostWallClock, Check: check(),
			},
			Identity: schema.DeviceIdentity{BusAddress: "0000:01:00.0", VendorID: "10de", DeviceID: "2c05",
				Name: "NVIDIA GeForce RTX 5070 Ti", AdapterType: "discrete-gpu"},
			Environment: schema.ProbeEnvironment{DriverVersion: "580.159.04", Backend: "vulkan", RunDurationS: 42.5,
				ProbeSuiteVersion: "0.1.0", Mode: "full", OS: "linux", Arch: "arm64"},
			Probes: []schema.ProbeRecord{{Name: "webgpu-stream", Version: "1"}, {Name: "webgpu-launch", Version: "1"}},
			NotMeasured: []schema.Omission{
				{Field: "precisions", Reason: "not probed in this run"},
				{Field: "interconnect", Reason: "not probed in this run"},
				{Field: "thermal", Reason: "not probed in this run"},
				{Field: "roofline", Reason: "not probed in this run"},
				{Field: "cross_checks", Reason: "not requested"},
				{Field: "memory.usable_bytes", Reason: "not probed in this run"},
				{Field: "memory.integrity", Reason: "not probed in this run"},
				{Field: "environment.ambient_c", Reason: "no inlet sensor and no --ambient-c"},
				{Field: "identity.vbios_hash", Reason: "no ROM and no NVML"},
				{Field: "identity.serial", Reason: "no NVML"},
				{Field: "identity.uuid", Reason: "no NVML"},
			},
		},
	}
}

// signedPair returns a signed box and a card linked to it.
func signedPair() (card, box []byte, err error) {
	s := newTestSigner("example")
	box, hash, err := schema.SignBox(exampleBox(), s)
	if err != nil {
		return nil, nil, err
	}
	card, err = schema.SignCard(exampleCard(hash), s)
	return card, box, err
}

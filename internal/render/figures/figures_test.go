package figures

import (
	"strings"
	"testing"

	"github.com/everycycle/appraise/schema"
)

func vector(scale float64, driver string) schema.CapabilityVector {
	st := func(m float64) schema.Stat { return schema.Stat{Samples: 3, Median: m, Min: m, Max: m} }
	phys := uint64(1 << 30)
	return schema.CapabilityVector{
		Precisions: []schema.PrecisionThroughput{
			{Operation: "fma", InputType: "fp32", AccumulatorType: "fp32", OpsPerS: st(6e13 * scale)},
			{Operation: "gemm", InputType: "fp16", AccumulatorType: "fp32", MatrixEngine: true, OpsPerS: st(4e14 * scale),
				Shape: &schema.MatrixShape{M: 16, N: 8, K: 16}},
		},
		Memory:         &schema.Memory{PhysicalBytes: &phys, Bandwidth: []schema.Bandwidth{{Kernel: "copy", BytesPerS: st(4e12 * scale)}}},
		LaunchOverhead: &schema.LaunchOverhead{EmptyDispatchS: st(1e-5 / scale), Upload1MiBS: st(4e-5)},
		Environment:    schema.ProbeEnvironment{DriverVersion: driver, Backend: "vulkan", ProbeSuiteVersion: "0.1.0", Mode: "full"},
	}
}

func TestListNamesAndUnits(t *testing.T) {
	var names []string
	for _, f := range List(vector(1, "x")) {
		names = append(names, f.Name+"["+f.Unit+"]")
	}
	want := "precision.fma.fp32[ops/s] precision.gemm.fp16-fp32.matrix.16x8x16[ops/s] memory.physical[bytes] memory.bandwidth.copy[bytes/s] launch.empty_dispatch[s] launch.upload_1mib[s]"
	if got := strings.Join(names, " "); got != want {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
}

func TestPeerAndBoxFigures(t *testing.T) {
	st := func(m float64) schema.Stat { return schema.Stat{Samples: 7, Median: m, Min: m, Max: m} }
	tr := func(m float64) schema.Transfer { return schema.Transfer{BytesPerS: st(m)} }
	both := tr(3.6e11)
	v := schema.CapabilityVector{Interconnect: &schema.Interconnect{Peers: []schema.PeerLink{
		{Peer: "0000:00:07.0", OneWay: tr(3.9e11), BothWays: &both, LatencyS: &schema.Stat{Samples: 101, Median: 1e-5, Min: 9e-6, Max: 2e-5}},
	}}}
	var names []string
	for _, f := range List(v) {
		names = append(names, f.Name+"["+f.Unit+"]")
	}
	want := "interconnect.peer.0000:00:07.0[bytes/s] interconnect.peer.0000:00:07.0.both_ways[bytes/s] interconnect.peer.0000:00:07.0.latency[s]"
	if got := strings.Join(names, " "); got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	b := schema.BoxPayload{HostLinks: &schema.HostLinksAtOnce{
		Devices: []schema.DeviceHostLink{
			{BusAddress: "0000:00:06.0", HostToDevice: tr(5e10), DeviceToHost: tr(5.1e10)},
			{BusAddress: "0000:00:07.0", HostToDevice: tr(4.9e10), DeviceToHost: tr(5e10)},
		},
		HostToDeviceBytesPerS: 9.9e10, DeviceToHostBytesPerS: 1.01e11,
	}}
	fs := Box(b)
	if len(fs) != 6 || fs[4].Name != "host.link.total.host_to_device" || fs[4].Median != 9.9e10 || fs[0].Name != "host.link.0000:00:06.0.host_to_device" {
		t.Errorf("box figures: %+v", fs)
	}
}

func TestCompareDeltas(t *testing.T) {
	a, b := vector(1, "x"), vector(2, "x")
	b.LaunchOverhead = nil
	ds := Compare(a, b)
	byName := map[string]Delta{}
	for _, d := range ds {
		byName[d.Name] = d
	}
	if d := byName["memory.bandwidth.copy"]; d.Relative == nil || *d.Relative != 1 {
		t.Fatalf("copy delta = %+v, want +100%%", d)
	}
	if d := byName["launch.empty_dispatch"]; d.B != nil || d.Relative != nil {
		t.Fatalf("figure missing in B must have no delta: %+v", d)
	}
}

func TestEnvironmentDifferences(t *testing.T) {
	a, b := vector(1, "580").Environment, vector(1, "575").Environment
	if d := EnvironmentDifferences(a, a); len(d) != 0 {
		t.Fatalf("same environment differs: %v", d)
	}
	d := EnvironmentDifferences(a, b)
	if len(d) != 1 || !strings.Contains(d[0], "driver version") {
		t.Fatalf("got %v", d)
	}
	hot, cold := 35.0, 22.0
	a.AmbientC, b.AmbientC = &hot, &cold
	b.DriverVersion = a.DriverVersion
	if d := EnvironmentDifferences(a, b); len(d) != 1 || !strings.Contains(d[0], "ambient") {
		t.Fatalf("got %v", d)
	}
}

// TestSharedUseDiffers: a card of a device shared with another user does
// not compare with any other, shared or alone; two cards alone (or one
// that does not say) do.
func TestSharedUseDiffers(t *testing.T) {
	a, b := vector(1, "580").Environment, vector(1, "580").Environment
	mem := uint64(40 << 30)
	a.SharedUse = &schema.SharedUse{Checked: true, Methods: []string{schema.SharedNVML}}
	if d := EnvironmentDifferences(a, b); len(d) != 0 {
		t.Fatalf("alone vs a card that does not say: %v", d)
	}
	b.SharedUse = &schema.SharedUse{Checked: true, Methods: []string{schema.SharedNVML}, Allowed: true, OthersFound: true,
		Processes: []schema.SharedProcess{{PID: 4242, Name: "python3", UsedMemoryBytes: &mem, Source: schema.SharedNVML}}}
	d := EnvironmentDifferences(a, b)
	if len(d) != 1 || d[0] != "shared use: alone vs shared with pid 4242 python3 (40.0 GiB, nvml)" {
		t.Fatalf("got %q", d)
	}
	if d := EnvironmentDifferences(b, b); len(d) != 1 {
		t.Fatalf("two shared cards: %q; want them to differ", d)
	}
	b.SharedUse.Processes = nil
	if got := SharedWith(b.SharedUse); !strings.Contains(got, "busy before probing") {
		t.Errorf("busy with no process: %q", got)
	}
}

// TestScheduleDiffers: a card measured beside the box's other devices
// does not compare with one measured alone; a card that does not say (an
// older writer's, which ran devices in turn) is a serial one.
func TestScheduleDiffers(t *testing.T) {
	a, b := vector(1, "580").Environment, vector(1, "580").Environment
	a.Schedule = "serial"
	if d := EnvironmentDifferences(a, b); len(d) != 0 {
		t.Fatalf("serial vs a card that does not say: %v", d)
	}
	b.Schedule = "concurrent"
	if d := EnvironmentDifferences(a, b); len(d) != 1 || d[0] != `schedule: "serial" vs "concurrent"` {
		t.Fatalf("got %q", d)
	}
}

package appraisal

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/everycycle/appraise/coopmat/vk"
	"github.com/everycycle/appraise/gpu"
	"github.com/everycycle/appraise/schema"
)

// softwarePair returns the software adapter (with its raw-Vulkan device)
// twice, under two made-up bus addresses that no real device of a test
// host has (so no CUDA device matches them), so the multi-device phase can
// run on one software device; it skips without an adapter (fails under
// CI=true, which installs one).
func softwarePair(t *testing.T) (*gpu.Instance, []Candidate) {
	t.Helper()
	inst, err := gpu.NewInstance()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(inst.Release)
	cands, _, err := Discover(inst, true, "")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cands {
		if c.Adapter.Software && c.Vulkan != nil {
			a, b := c, c
			a.Addr, a.BusAddress = "0000:7f:1e.6", "0000:7f:1e.6"
			b.Addr, b.BusAddress = "0000:7f:1f.6", "0000:7f:1f.6"
			return inst, []Candidate{a, b}
		}
	}
	if os.Getenv("CI") == "true" {
		t.Fatal("CI=true but no software adapter: install mesa-vulkan-drivers")
	}
	t.Skip("no software adapter")
	return nil, nil
}

// TestTogetherOnSoftware: two devices (the software adapter opened twice)
// get their host links measured at once into the box, and one directed
// link each way over the host-staged path (there is no CUDA driver here),
// with each preferred path that was passed over named with its reason.
func TestTogetherOnSoftware(t *testing.T) {
	inst, devs := softwarePair(t)
	checkTogether(t, inst, devs)
}

// TestTogetherOnTwoDevices is TestTogetherOnSoftware on two real devices
// (scripts/with-two-devices: two lavapipes of different Mesas in one
// process), each under a made-up bus address as softwarePair gives, since
// a peer link names its peer by one: the host-staged path moves and checks
// data between two drivers, not one driver's device and itself.
func TestTogetherOnTwoDevices(t *testing.T) {
	inst, devs := requireTwoDevices(t)
	for i, addr := range []string{"0000:7f:1e.6", "0000:7f:1f.6"} {
		devs[i].Addr, devs[i].BusAddress = addr, addr
	}
	checkTogether(t, inst, devs)
}

// checkTogether runs together on two devices and checks the box's host
// links and each card's one peer link.
func checkTogether(t *testing.T, inst *gpu.Instance, devs []Candidate) {
	t.Helper()
	vs := []*schema.CapabilityVector{{}, {}}
	box := schema.BoxPayload{}
	plans := make([]DevicePlan, len(devs))
	for i, c := range devs {
		plans[i] = planOf(t, c, Options{Quick: true})
	}
	if err := together(context.Background(), inst, devs, plans, vs, newWorker("box", Options{}), &box); err != nil {
		t.Fatal(err)
	}
	hl := box.HostLinks
	if hl == nil || len(hl.Devices) != 2 || hl.HostToDeviceBytesPerS <= 0 || hl.DeviceToHostBytesPerS <= 0 {
		t.Fatalf("host links: %+v", hl)
	}
	if sum := hl.Devices[0].HostToDevice.BytesPerS.Median + hl.Devices[1].HostToDevice.BytesPerS.Median; sum != hl.HostToDeviceBytesPerS {
		t.Errorf("host → device sum %g, want %g", hl.HostToDeviceBytesPerS, sum)
	}
	for _, d := range hl.Devices {
		if d.HostToDevice.Probe != "vulkan-hostlink" || d.DeviceToHost.Probe != "vulkan-hostlink" || !d.HostToDevice.Check.Passed {
			t.Errorf("host link of %s: %+v", d.BusAddress, d)
		}
	}
	for i, v := range vs {
		other := devs[1-i].BusAddress
		if v.Interconnect == nil || len(v.Interconnect.Peers) != 1 {
			t.Fatalf("card %d: interconnect %+v", i, v.Interconnect)
		}
		l := v.Interconnect.Peers[0]
		if l.Peer != other || l.OneWay.Path != "host-staged" || l.OneWay.Probe != "webgpu-host-staged-peerlink" || l.BothWays != nil || l.LatencyS == nil {
			t.Errorf("card %d: link %+v", i, l)
		}
		if l.OneWay.BytesPerS.Median <= 0 || l.OneWay.Check.Elements < l.OneWay.TransferBytes/4 {
			t.Errorf("card %d: one way %+v", i, l.OneWay)
		}
		var probes []string
		for _, s := range v.Skipped {
			if s.Item != "peer "+other || !strings.Contains(s.Reason, "measured over host-staged instead") {
				t.Errorf("card %d: skipped %+v", i, s)
			}
			probes = append(probes, s.Probe)
		}
		if got := strings.Join(probes, ","); got != "vulkan-device-group-peerlink,cuda-peerlink" {
			t.Errorf("card %d: passed over %s", i, got)
		}
	}
}

// TestPeerLinksNone: one device, or devices without bus addresses, make no
// pairs at all.
func TestPeerLinksNone(t *testing.T) {
	for _, devs := range [][]Candidate{{{BusAddress: "0000:00:06.0"}}, {{Addr: "adapter-0"}, {Addr: "adapter-1"}}} {
		vs := make([]*schema.CapabilityVector, len(devs))
		for i := range vs {
			vs[i] = &schema.CapabilityVector{}
		}
		if err := peerLinks(context.Background(), devs, nil, vs, vulkanGroups{}); err != nil {
			t.Fatal(err)
		}
		for _, v := range vs {
			if v.Interconnect != nil || len(v.Skipped) != 0 {
				t.Errorf("%d devices: %+v %+v", len(devs), v.Interconnect, v.Skipped)
			}
		}
	}
}

// TestPeerLinksOmittedWithoutBusAddress: in a run of several devices, a
// card that gets no peer link (a software adapter, an adapter whose bus
// address is unknown, or the one device with a bus address) says why
// interconnect.peers is absent, so the card still validates; no pair is
// measured, so no device needs to be open.
func TestPeerLinksOmittedWithoutBusAddress(t *testing.T) {
	sw := Candidate{Addr: "software-0", Adapter: gpu.AdapterInfo{Software: true}}
	sw1 := Candidate{Addr: "software-1", Adapter: gpu.AdapterInfo{Software: true, Index: 1}}
	unmatched := Candidate{Addr: "adapter-2", vulkanWhy: "no raw-Vulkan device matches this adapter"}
	noExt := Candidate{Addr: "adapter-3", Vulkan: &coopmatInfo0}
	gpu := Candidate{Addr: "0000:01:00.0", BusAddress: "0000:01:00.0"}
	for _, tc := range []struct {
		devs []Candidate
		want []string // each card's reason, in part
	}{
		{[]Candidate{sw, sw1}, []string{"software adapter has no PCI bus address", "software adapter has no PCI bus address"}},
		{[]Candidate{unmatched, noExt, gpu}, []string{"bus address is unknown (no raw-Vulkan device matches", "no VK_EXT_pci_bus_info", "no other appraised device has a PCI bus address"}},
	} {
		vs := make([]*schema.CapabilityVector, len(tc.devs))
		for i := range vs {
			vs[i] = &schema.CapabilityVector{Interconnect: &schema.Interconnect{}}
		}
		if err := peerLinks(context.Background(), tc.devs, nil, vs, vulkanGroups{}); err != nil {
			t.Fatal(err)
		}
		for i, v := range vs {
			if len(v.NotMeasured) != 1 || v.NotMeasured[0].Field != "interconnect.peers" || !strings.Contains(v.NotMeasured[0].Reason, tc.want[i]) {
				t.Errorf("%s: not measured %+v, want interconnect.peers: …%s…", tc.devs[i].Addr, v.NotMeasured, tc.want[i])
			}
			if v.Interconnect.Peers != nil {
				t.Errorf("%s: peers %+v", tc.devs[i].Addr, v.Interconnect.Peers)
			}
		}
	}
}

func TestVulkanGroupsWhy(t *testing.T) {
	a := Candidate{Vulkan: &coopmatInfo0}
	b := Candidate{Vulkan: &coopmatInfo1}
	for _, tc := range []struct {
		g    vulkanGroups
		a, b Candidate
		want string
	}{
		{vulkanGroups{groups: [][]int{{0}, {1}}}, a, b, "no Vulkan device group holds both"},
		{vulkanGroups{groups: [][]int{{0, 1}}}, a, b, "no device-group peer probe yet"},
		{vulkanGroups{groups: [][]int{{0, 1}}}, a, Candidate{}, "not matched"},
	} {
		if got := tc.g.why(tc.a, tc.b); !strings.Contains(got, tc.want) {
			t.Errorf("why = %q, want %q", got, tc.want)
		}
	}
}

var (
	coopmatInfo0 = vk.DeviceInfo{Index: 0}
	coopmatInfo1 = vk.DeviceInfo{Index: 1}
)

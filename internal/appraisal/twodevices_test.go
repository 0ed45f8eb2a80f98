package appraisal

import (
	"context"
	"crypto/ed25519"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/everycycle/appraise/gpu"
	"github.com/everycycle/appraise/schema"
	"github.com/everycycle/appraise/verify"
)

// requireTwoDevices returns a WebGPU instance and the two devices an
// appraisal with --software would appraise, as Discover classifies them,
// when the test runs under scripts/with-two-devices (go test -exec
// $PWD/scripts/with-two-devices ./internal/appraisal/), which sets
// APPRAISE_TWO_DEVICES=1; without it the test skips. Under it, anything
// but two included devices, each tied to its own raw-Vulkan device, fails
// the test: the script promised two real devices.
func requireTwoDevices(t *testing.T) (*gpu.Instance, []Candidate) {
	t.Helper()
	if os.Getenv("APPRAISE_TWO_DEVICES") != "1" {
		t.Skip("needs two devices: go test -exec $PWD/scripts/with-two-devices")
	}
	inst, err := gpu.NewInstance()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(inst.Release)
	cands, _, err := Discover(inst, true, "")
	if err != nil {
		t.Fatal(err)
	}
	devs, err := Select(cands, "")
	if err != nil {
		t.Fatalf("APPRAISE_TWO_DEVICES=1: %v (candidates %+v)", err, cands)
	}
	if len(devs) != 2 {
		t.Fatalf("APPRAISE_TWO_DEVICES=1 but %d devices are included: %+v", len(devs), devs)
	}
	for _, c := range devs {
		if c.Vulkan == nil {
			t.Fatalf("APPRAISE_TWO_DEVICES=1 but %s (%s) is tied to no raw-Vulkan device: %s", c.Addr, c.Adapter.DisplayName(), c.vulkanWhy)
		}
	}
	return inst, devs
}

// TestTwoDevicesDiscovered: under scripts/with-two-devices, discovery
// gives the two software devices addresses, names and raw-Vulkan devices
// of their own, so their cards' files, the box's lists and the raw-Vulkan
// probes never mix them up.
func TestTwoDevicesDiscovered(t *testing.T) {
	_, devs := requireTwoDevices(t)
	a, b := devs[0], devs[1]
	if a.Addr == b.Addr {
		t.Errorf("both devices have address %s", a.Addr)
	}
	if a.Adapter.DisplayName() == b.Adapter.DisplayName() {
		t.Errorf("both devices are named %q", a.Adapter.DisplayName())
	}
	if a.Vulkan.Index == b.Vulkan.Index {
		t.Errorf("both devices are tied to raw-Vulkan device %d", a.Vulkan.Index)
	}
	for _, c := range devs {
		t.Logf("%s: %s, raw-Vulkan device %d (%s %s)", c.Addr, c.Adapter.DisplayName(), c.Vulkan.Index, c.Vulkan.DriverName, c.Vulkan.DriverInfo)
	}
}

// TestAppraiseTwoDevices: both devices appraised at once, and again with
// --serial, give two cards and one box that are signed, written and
// verify as one whole run; each card says how it was scheduled and how
// many devices soaked together, and the box holds the host links at once.
// (The peer link each way between these two devices is
// TestTogetherOnTwoDevices: a software card's identity has no bus
// address, by which a peer link names its peer.)
func TestAppraiseTwoDevices(t *testing.T) {
	inst, devs := requireTwoDevices(t)
	for _, serial := range []bool{false, true} {
		schedule, together := ScheduleConcurrent, 2
		if serial {
			schedule, together = ScheduleSerial, 1
		}
		t.Run(schedule, func(t *testing.T) {
			o := twoDeviceOptions(t)
			o.Serial = serial
			t0 := time.Now()
			run, err := Appraise(context.Background(), inst, devs, devs, o)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%s: %.1f s wall", schedule, time.Since(t0).Seconds()) // not asserted: docs/performance.md, "Several devices at once"
			if len(run.Cards) != 2 || run.Box.HostLinks == nil || len(run.Box.FailedDevices) != 0 {
				t.Fatalf("%d cards, host links %+v, failed %+v", len(run.Cards), run.Box.HostLinks, run.Box.FailedDevices)
			}
			for i, c := range run.Cards {
				env, th := c.Capability.Environment, c.Capability.Thermal
				t.Logf("%s: %.1f s", devs[i].Addr, env.RunDurationS)
				want := together
				if soakedAgain(c.Capability) {
					want = 1 // a soak measured again runs in the host's turn, alone
				}
				if env.Schedule != schedule || th == nil || th.DevicesSoakedTogether != want {
					t.Errorf("%s: schedule %q, thermal %+v; want %s, %d soaked together", devs[i].Addr, env.Schedule, th, schedule, want)
				}
			}
			verifyWholeRun(t, run, 2)
		})
	}
}

// TestOneOfTwoDevicesFails: a fault injected into the second device's
// roofline probe fails that device alone. The first device's card is
// made (its soak does not wait for the failed device), and signs and
// verifies with a box that lists the failed device and why; the run's
// error says a device failed and which probe.
func TestOneOfTwoDevicesFails(t *testing.T) {
	inst, devs := requireTwoDevices(t)
	o := twoDeviceOptions(t)
	bad := devs[1].Addr
	o.fault = func(device, probe string) error {
		if device == bad && probe == (gpu.RooflineProbe{}).Name() {
			return errors.New("injected fault")
		}
		return nil
	}
	run, err := Appraise(context.Background(), inst, devs, devs, o)
	if !errors.Is(err, ErrDeviceFailed) || !errors.Is(err, ErrProbe) || !strings.Contains(err.Error(), bad) {
		t.Fatalf("error %v; want ErrDeviceFailed naming %s", err, bad)
	}
	if run == nil || len(run.Cards) != 1 || len(run.Box.DriverVersions) != 1 || run.Box.DriverVersions[0].BusAddress != devs[0].Addr {
		t.Fatalf("run %+v", run)
	}
	if f := run.Box.FailedDevices; len(f) != 1 || f[0].BusAddress != bad || !strings.Contains(f[0].Reason, "webgpu-roofline: injected fault") {
		t.Errorf("failed devices %+v", f)
	}
	if run.Box.HostLinks != nil || !slices.Contains(run.Box.PresentDevices, bad) {
		t.Errorf("box: host links %+v, present %v", run.Box.HostLinks, run.Box.PresentDevices)
	}
	v := run.Cards[0].Capability
	if v.Environment.Schedule != ScheduleConcurrent || v.Thermal == nil || v.Thermal.DevicesSoakedTogether != 1 {
		t.Errorf("the card left: schedule %q, thermal %+v", v.Environment.Schedule, v.Thermal)
	}
	verifyWholeRun(t, run, 1)
}

// twoDeviceOptions are a quick appraisal's options, stages on stderr (a
// crash names its stage).
func twoDeviceOptions(t *testing.T) Options {
	t.Helper()
	return Options{Quick: true, Version: "test", Progress: func(dev, stage string) { fmt.Fprintf(os.Stderr, "stage %s: %s\n", dev, stage) }}
}

// verifyWholeRun signs run with a test key, writes it to a new directory
// and verifies that directory as one run: cards cards and a box, all OK.
func verifyWholeRun(t *testing.T, run *Run, cards int) {
	t.Helper()
	files, err := run.Sign(testSigner{ed25519.NewKeyFromSeed(make([]byte, ed25519.SeedSize))})
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "run")
	if err := WriteAll(dir, files, false); err != nil {
		t.Fatal(err)
	}
	vs, err := verify.Files([]string{dir}, verify.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(vs) != cards+1 {
		t.Errorf("%d verdicts, want %d cards and a box", len(vs), cards)
	}
	for _, v := range vs {
		if !v.OK {
			t.Errorf("%s: %s: %s", v.File, v.Class, v.Error)
		}
	}
}

// testSigner signs with a fixed Ed25519 key.
type testSigner struct{ priv ed25519.PrivateKey }

func (s testSigner) Sign(msg []byte) []byte    { return ed25519.Sign(s.priv, msg) }
func (s testSigner) Public() ed25519.PublicKey { return s.priv.Public().(ed25519.PublicKey) }
func (s testSigner) Tenant() string            { return "test" }

// soakedAgain says whether v's soak was measured again for a consistency
// rule: a rule reading a soak figure records a re-measure.
func soakedAgain(v schema.CapabilityVector) bool {
	return slices.ContainsFunc(v.Consistency, func(c schema.ConsistencyCheck) bool {
		return c.Remeasured && (strings.HasPrefix(c.Figure, "thermal.") || strings.HasPrefix(c.OtherFigure, "thermal."))
	})
}

package appraisal

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/everycycle/appraise/gpu"
	"github.com/everycycle/appraise/internal/platform/pci"
	"github.com/everycycle/appraise/schema"
)

func TestIdentityAMDFromSysfs(t *testing.T) {
	root := t.TempDir()
	dev := filepath.Join(root, "sys/bus/pci/devices/0000:03:00.0")
	if err := os.MkdirAll(dev, 0o755); err != nil {
		t.Fatal(err)
	}
	for f, body := range map[string]string{"vbios_version": "113-D7070100-100\n", "unique_id": "a1b2c3d4e5f60708\n"} {
		if err := os.WriteFile(filepath.Join(dev, f), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	drv := filepath.Join(root, "sys/bus/pci/drivers/amdgpu")
	if err := os.MkdirAll(drv, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(drv, filepath.Join(dev, "driver")); err != nil {
		t.Fatal(err)
	}
	d := pciDev(t, "0000:03:00.0", 0x030000, 0x1002, 0x744c, 32<<30, "amdgpu")
	c := Candidate{Adapter: gpu.AdapterInfo{Type: "discrete-gpu"}, PCI: &d, BusAddress: "0000:03:00.0"}
	v := &schema.CapabilityVector{Identity: schema.DeviceIdentity{VendorID: "1002", BusAddress: "0000:03:00.0"}}
	out := vendorIdentity(nil, errors.New("no NVML"), c, v, root)
	id := v.Identity
	if id.Serial != "a1b2c3d4e5f60708" || id.VBIOSHash != pci.VersionHash("113-D7070100-100") || id.VBIOSHashSource != "vendor-version" {
		t.Fatalf("identity %+v", id)
	}
	if len(out) != 1 || out[0].Field != "identity.uuid" {
		t.Fatalf("omissions %+v", out)
	}
}

func TestIdentityNVIDIAWithoutNVML(t *testing.T) {
	c := Candidate{Adapter: gpu.AdapterInfo{Type: "discrete-gpu", VendorID: 0x10de}, BusAddress: "0000:00:06.0"}
	v := &schema.CapabilityVector{Identity: schema.DeviceIdentity{VendorID: "10de", BusAddress: "0000:00:06.0"}}
	out := vendorIdentity(nil, errors.New("libnvidia-ml.so.1: cannot open"), c, v, t.TempDir())
	if len(out) != 3 || !strings.Contains(out[0].Reason, "NVML: libnvidia-ml.so.1") {
		t.Fatalf("omissions %+v", out)
	}
}

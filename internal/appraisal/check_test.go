package appraisal

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/everycycle/appraise/coopmat/vk"
	"github.com/everycycle/appraise/gpu"
	"github.com/everycycle/appraise/schema"
)

// TestFindCardDevice: the device found is the card's only when the bus
// address, the ids and, where the card has it, the board identity match;
// a software adapter matches by ids and name.
func TestFindCardDevice(t *testing.T) {
	root := t.TempDir()
	dev := filepath.Join(root, "sys/bus/pci/devices/0000:03:00.0")
	drv := filepath.Join(root, "sys/bus/pci/drivers/amdgpu")
	for _, d := range []string{dev, drv} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dev, "unique_id"), []byte("a1b2c3d4e5f60708\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(drv, filepath.Join(dev, "driver")); err != nil {
		t.Fatal(err)
	}
	d := pciDev(t, "0000:03:00.0", 0x030000, 0x1002, 0x744c, 32<<30, "amdgpu")
	amd := Candidate{Addr: "0000:03:00.0", Adapter: gpu.AdapterInfo{Index: 0, Type: "discrete-gpu", VendorID: 0x1002, DeviceID: 0x744c, Name: "AMD Radeon"},
		PCI: &d, BusAddress: "0000:03:00.0", Vulkan: &vk.DeviceInfo{}}
	sw := Candidate{Addr: "software-1", Adapter: gpu.AdapterInfo{Index: 1, Type: "cpu", VendorID: 0x10005, DeviceID: 0, Name: "llvmpipe", Software: true}}
	cands := []Candidate{amd, sw}
	gpuID := schema.DeviceIdentity{VendorID: "1002", DeviceID: "744c", BusAddress: "0000:03:00.0", Name: "AMD Radeon"}
	for _, tc := range []struct {
		name string
		id   func(schema.DeviceIdentity) schema.DeviceIdentity
		want string // "" for the AMD card, "software-1", or an error's text
	}{
		{"same card", func(id schema.DeviceIdentity) schema.DeviceIdentity { return id }, "0000:03:00.0"},
		{"same serial", func(id schema.DeviceIdentity) schema.DeviceIdentity { id.Serial = "a1b2c3d4e5f60708"; return id }, "0000:03:00.0"},
		{"another board in the slot", func(id schema.DeviceIdentity) schema.DeviceIdentity { id.Serial = "ffff"; return id },
			`has serial "a1b2c3d4e5f60708", the card "ffff": another board`},
		{"a UUID that cannot be read", func(id schema.DeviceIdentity) schema.DeviceIdentity { id.UUID = "GPU-1"; return id }, "cannot be read here"},
		{"another slot", func(id schema.DeviceIdentity) schema.DeviceIdentity { id.BusAddress = "0000:04:00.0"; return id }, "the card describes 1002:744c"},
		{"other ids", func(id schema.DeviceIdentity) schema.DeviceIdentity { id.DeviceID = "74a1"; return id }, "no device here"},
		{"software", func(schema.DeviceIdentity) schema.DeviceIdentity {
			return schema.DeviceIdentity{VendorID: "10005", DeviceID: "0000", Name: "llvmpipe", Software: true}
		}, "software-1"},
		{"another software adapter", func(schema.DeviceIdentity) schema.DeviceIdentity {
			return schema.DeviceIdentity{VendorID: "10005", DeviceID: "0000", Name: "SwiftShader", Software: true}
		}, "no device here"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := FindCardDevice(cands, tc.id(gpuID), root)
			switch {
			case err == nil && c.Addr == tc.want:
			case err != nil && errors.Is(err, ErrIdentity) && strings.Contains(err.Error(), tc.want):
			default:
				t.Errorf("got %q, %v; want %q", c.Addr, err, tc.want)
			}
		})
	}
}

package gpu

import (
	"errors"
	"testing"
)

func TestIsSoftware(t *testing.T) {
	cases := []struct {
		typ, name, driver string
		want              bool
	}{
		{"cpu", "0x0", "", true},
		{"unknown", "0x0", "llvmpipe (LLVM 15.0.6, 256 bits)", true},
		{"integrated-gpu", "SwiftShader Device (Subzero)", "", true},
		{"unknown", "lavapipe", "", true},
		{"discrete-gpu", "Microsoft Basic Render Driver", "", true},
		{"discrete-gpu", "NVIDIA H200", "580.159.04", false},
		{"integrated-gpu", "AMD Radeon Graphics (RADV GFX1103_R1)", "Mesa 24", false},
		{"discrete-gpu", "softpipes inc. accelerator", "", false},
	}
	for _, c := range cases {
		if got := IsSoftware(c.typ, c.name, c.driver); got != c.want {
			t.Errorf("IsSoftware(%q, %q, %q) = %t, want %t", c.typ, c.name, c.driver, got, c.want)
		}
	}
}

func TestDisplayName(t *testing.T) {
	cases := []struct {
		a    AdapterInfo
		want string
	}{
		{AdapterInfo{Name: "0x0", DriverDescription: "llvmpipe"}, "llvmpipe"},
		{AdapterInfo{Name: "", DriverDescription: "driver"}, "driver"},
		{AdapterInfo{Name: "NVIDIA H200", DriverDescription: "580"}, "NVIDIA H200"},
		{AdapterInfo{Name: "0x2335"}, "0x2335"},
		{AdapterInfo{Name: "0xcafe-card", DriverDescription: "d"}, "0xcafe-card"},
	}
	for _, c := range cases {
		if got := c.a.DisplayName(); got != c.want {
			t.Errorf("DisplayName(%+v) = %q, want %q", c.a, got, c.want)
		}
	}
}

func TestAdaptersAndReleaseTwice(t *testing.T) {
	inst, err := NewInstance()
	if err != nil {
		t.Fatal(err)
	}
	as, err := inst.Adapters()
	if err != nil && !errors.Is(err, ErrNoAdapter) {
		t.Fatal(err)
	}
	for i, a := range as {
		if a.Index != i || a.Backend == "" || a.Type == "" {
			t.Errorf("adapter %d: %+v", i, a)
		}
		t.Logf("adapter %d: %q type %s backend %s vendor %#x device %#x software %t",
			i, a.DisplayName(), a.Type, a.Backend, a.VendorID, a.DeviceID, a.Software)
	}
	inst.Release()
	inst.Release()
	if _, err := inst.Adapters(); err == nil {
		t.Error("Adapters on a released instance did not fail")
	}
	if _, err := Open(inst, AdapterInfo{}, Options{}); err == nil {
		t.Error("Open on a released instance did not fail")
	}
}

package nvml

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	gonvml "github.com/NVIDIA/go-nvml/pkg/nvml"
)

func TestVBIOSHash(t *testing.T) {
	cases := map[string]string{
		// sha256sum of the bytes, no newline.
		"96.00.AF.00.01": "ed4326fe6347b2f22273cb73035ac6756f6556ebf492d83b6e3ba0993bf2c40f",
		"abc":            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
		"":               "", // no version, no hash
	}
	for in, want := range cases {
		if got := VBIOSHash(in); got != want {
			t.Errorf("VBIOSHash(%q) = %q; want %q", in, got, want)
		}
	}
	// The exact string is hashed: case and whitespace change the hash.
	if VBIOSHash("96.00.AF.00.01") == VBIOSHash("96.00.af.00.01") ||
		VBIOSHash("96.00.AF.00.01") == VBIOSHash("96.00.AF.00.01 ") {
		t.Error("VBIOSHash normalises its input; it must hash the exact string")
	}
}

func TestIdentity(t *testing.T) {
	d := openFake(t, fakeAPI(fakeH200()))
	id, err := d.Identity()
	if err != nil {
		t.Fatal(err)
	}
	want := Identity{
		Name:             "NVIDIA H200",
		Serial:           "1650924000001",
		UUID:             "GPU-00000000-1111-2222-3333-444444444444",
		VBIOSVersion:     "96.00.AF.00.01",
		BusID:            "0000:00:06.0",
		PCIDeviceID:      0x233510de,
		PCISubsystemID:   0x18bf10de,
		BoardPartNumber:  "692-2G530-0250-000",
		MemoryTotalBytes: 143771 << 20,
	}
	if id.Missing != nil {
		t.Errorf("Missing = %v; want nil", id.Missing)
	}
	if !reflect.DeepEqual(id, want) {
		t.Errorf("Identity() =\n%+v\nwant\n%+v", id, want)
	}
}

func TestIdentityBestEffort(t *testing.T) {
	dev := fakeH200()
	dev.GetSerialFunc = func() (string, gonvml.Return) { return "", gonvml.ERROR_NOT_SUPPORTED }
	dev.GetBoardPartNumberFunc = func() (string, gonvml.Return) { return "junk", gonvml.ERROR_NO_PERMISSION }
	dev.GetPciInfoFunc = func() (gonvml.PciInfo, gonvml.Return) { return gonvml.PciInfo{}, gonvml.ERROR_UNKNOWN }
	d := openFake(t, fakeAPI(dev))
	id, err := d.Identity()
	if err != nil {
		t.Fatalf("a field NVML does not support failed the whole Identity: %v", err)
	}
	if id.Serial != "" || id.BoardPartNumber != "" || id.BusID != "" || id.PCIDeviceID != 0 {
		t.Errorf("failed fields not left empty: %+v", id)
	}
	if id.Name != "NVIDIA H200" || id.VBIOSVersion == "" || id.UUID == "" {
		t.Errorf("fields that were read are missing: %+v", id)
	}
	want := map[string]string{
		FieldSerial:          "nvml: nvmlDeviceGetSerial: ERROR_NOT_SUPPORTED",
		FieldBoardPartNumber: "nvml: nvmlDeviceGetBoardPartNumber: ERROR_NO_PERMISSION",
		FieldPCI:             "nvml: nvmlDeviceGetPciInfo: ERROR_UNKNOWN",
	}
	if len(id.Missing) != len(want) {
		t.Errorf("Missing = %v; want %v", id.Missing, want)
	}
	for k, v := range want {
		if id.Missing[k] != v {
			t.Errorf("Missing[%q] = %q; want %q", k, id.Missing[k], v)
		}
	}
}

func TestIdentityMalformedBusID(t *testing.T) {
	dev := fakeH200()
	dev.GetPciInfoFunc = func() (gonvml.PciInfo, gonvml.Return) {
		return gonvml.PciInfo{PciDeviceId: 0x233510de}, gonvml.SUCCESS // empty BusId
	}
	id, err := openFake(t, fakeAPI(dev)).Identity()
	if err != nil {
		t.Fatal(err)
	}
	if id.BusID != "" || id.PCIDeviceID != 0x233510de || !strings.Contains(id.Missing[FieldPCI], "bus id") {
		t.Errorf("Identity() = %+v; want ids kept, bus id missing with a reason", id)
	}
}

func TestIdentityGPULost(t *testing.T) {
	dev := fakeH200()
	dev.GetUUIDFunc = func() (string, gonvml.Return) { return "", gonvml.ERROR_GPU_IS_LOST }
	id, err := openFake(t, fakeAPI(dev)).Identity()
	if !errors.Is(err, ErrGPULost) {
		t.Fatalf("Identity() error = %v; want ErrGPULost", err)
	}
	if id.Name != "NVIDIA H200" || id.Missing[FieldUUID] == "" {
		t.Errorf("Identity() = %+v; want what was read kept and the loss noted", id)
	}
}

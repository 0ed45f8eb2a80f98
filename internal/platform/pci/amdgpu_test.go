package pci

import (
	"errors"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"testing"
)

// rx7900 is an RX 7900 XTX-like amdgpu card (vendor 0x1002, device 0x744c)
// with the identity files a consumer board has: vbios_version and
// unique_id, an empty product_name (as kernels before FRU visibility
// checks show it) and no product_number or serial_number. The ids follow
// desktopHost; the file contents are invented in amdgpu's format.
func rx7900(bdf string) fakeDev {
	return dev(bdf, "0x030000", "0x1002", "0x744c", "0x1da2", "0x471e").
		bar(0, "0x0000007800000000 0x000000780fffffff "+flags64Pref).
		bar(2, "0x0000007810000000 0x00000078101fffff "+flags64Pref).
		bar(5, "0x0000000080000000 0x00000000800fffff "+flags32NonPref).
		with("mem_info_vram_total", "25753026560").
		with("vbios_version", "113-D7020100-102").
		with("unique_id", "4c3a1b2e9f0d7a65").
		with("product_name", "").
		link("16.0 GT/s PCIe", "16").bound("amdgpu").withROM()
}

// rx7900BDF is where tests put the rx7900.
var rx7900BDF = BDF{Bus: 3}

// devPath returns the device directory of bdf in a fake tree.
func devPath(root string, bdf BDF) string {
	return filepath.Join(root, "sys", "bus", "pci", "devices", bdf.String())
}

func TestAMDIdentity(t *testing.T) {
	root := buildTree(t, rx7900("0000:03:00.0"))
	got, err := AMDIdentity(root, rx7900BDF)
	if err != nil {
		t.Fatal(err)
	}
	want := AMD{VBIOSVersion: "113-D7020100-102", UniqueID: "4c3a1b2e9f0d7a65", VRAMTotalBytes: 25753026560}
	if got.VBIOSVersion != want.VBIOSVersion || got.UniqueID != want.UniqueID || got.VRAMTotalBytes != want.VRAMTotalBytes ||
		got.ProductName != "" || got.ProductNumber != "" || got.SerialNumber != "" {
		t.Errorf("AMDIdentity = %+v, want %+v", got, want)
	}
	wantMissing := map[string]string{
		FieldProductName:   "product_name is empty",
		FieldProductNumber: "the driver does not expose product_number",
		FieldSerialNumber:  "the driver does not expose serial_number",
	}
	if !maps.Equal(got.Missing, wantMissing) {
		t.Errorf("Missing = %v, want %v", got.Missing, wantMissing)
	}
}

func TestAMDIdentityFRU(t *testing.T) {
	// An Instinct-like board whose FRU EEPROM fills every field.
	d := rx7900("0000:03:00.0").with("product_name", "AMD Instinct MI210").
		with("product_number", "102-D67302-00").with("serial_number", "692251001234")
	got, err := AMDIdentity(buildTree(t, d), rx7900BDF)
	if err != nil {
		t.Fatal(err)
	}
	if got.ProductName != "AMD Instinct MI210" || got.ProductNumber != "102-D67302-00" || got.SerialNumber != "692251001234" {
		t.Errorf("AMDIdentity = %+v", got)
	}
	if got.Missing != nil {
		t.Errorf("Missing = %v, want nil", got.Missing)
	}
}

func TestAMDIdentityUnreadable(t *testing.T) {
	d := rx7900("0000:03:00.0").with("mem_info_vram_total", "lots")
	root := buildTree(t, d)
	// A directory in place of a file stands for a read the driver refuses.
	if err := os.Remove(filepath.Join(devPath(root, rx7900BDF), "unique_id")); err != nil {
		t.Fatal(err)
	}
	mkdir(t, filepath.Join(devPath(root, rx7900BDF), "unique_id"))
	got, err := AMDIdentity(root, rx7900BDF)
	if err != nil {
		t.Fatal(err)
	}
	if got.VRAMTotalBytes != 0 || got.UniqueID != "" || got.VBIOSVersion == "" {
		t.Errorf("AMDIdentity = %+v", got)
	}
	for _, k := range []string{FieldVRAMTotalBytes, FieldUniqueID} {
		if got.Missing[k] == "" {
			t.Errorf("Missing[%s] empty; Missing = %v", k, got.Missing)
		}
	}
}

func TestAMDIdentityNotAMDGPU(t *testing.T) {
	root := buildTree(t, append(h200Devices(), rx7900("0000:03:00.0").bound(""))...)
	for _, bdf := range []BDF{{Device: 6}, rx7900BDF} {
		_, err := AMDIdentity(root, bdf)
		if !errors.Is(err, ErrNotAMDGPU) {
			t.Errorf("AMDIdentity(%s) error = %v, want ErrNotAMDGPU", bdf, err)
		}
	}
	if _, err := AMDIdentity(root, BDF{Bus: 9}); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("AMDIdentity(absent device) error = %v, want fs.ErrNotExist", err)
	}
}

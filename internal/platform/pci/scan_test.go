package pci

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// verdict is the expected classification of one device of a host.
type verdict struct {
	bdf       string
	candidate bool
	reason    string // a substring of the reason
}

func TestScanHosts(t *testing.T) {
	notDisplay := "not a display controller"
	tests := []struct {
		name string
		devs []fakeDev
		want []verdict // every device, in bus order
	}{
		{"astra", astraHost(), []verdict{
			{"0000:00:00.0", false, notDisplay + " (class 0x060400)"},
			{"0000:01:00.0", true, "a 16 GiB prefetchable 64-bit memory BAR"},
			{"0003:02:00.0", false, "ASPEED (BMC display chip): never a compute GPU"},
			{"0004:01:00.0", false, notDisplay + " (class 0x010802)"},
			{"0005:01:00.0", false, notDisplay + " (class 0x020000)"},
		}},
		{"h200", h200Devices(), []verdict{
			{"0000:00:00.0", false, notDisplay},
			{"0000:00:01.0", false, notDisplay},
			{"0000:00:02.0", false, notDisplay},
			{"0000:00:03.0", false, notDisplay},
			{"0000:00:04.0", false, notDisplay + " (class 0xffff00)"},
			{"0000:00:05.0", false, notDisplay},
			{"0000:00:06.0", true, "3D controller from vendor 0x10de with a 256 GiB prefetchable 64-bit memory BAR"},
		}},
		{"desktop", desktopHost(), []verdict{
			{"0000:00:02.0", false, "integrated GPU"},
			{"0000:01:00.0", false, notDisplay},
			{"0000:02:00.0", false, notDisplay},
			{"0000:03:00.0", true, "24 GiB of VRAM reported by amdgpu"},
			{"0000:03:00.1", false, notDisplay + " (class 0x040300)"},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			devs, err := Scan(buildTree(t, tt.devs...))
			if err != nil {
				t.Fatal(err)
			}
			if len(devs) != len(tt.want) {
				t.Fatalf("Scan found %d devices, want %d", len(devs), len(tt.want))
			}
			for i, w := range tt.want {
				d := devs[i]
				cand, reason := Classify(d)
				if d.BDF.String() != w.bdf || cand != w.candidate || !strings.Contains(reason, w.reason) {
					t.Errorf("device %d: %s candidate=%v reason %q; want %s candidate=%v reason containing %q",
						i, d.BDF, cand, reason, w.bdf, w.candidate, w.reason)
				}
			}
		})
	}
}

func TestScanH200Fields(t *testing.T) {
	devs, err := Scan(buildTree(t, h200Devices()...))
	if err != nil {
		t.Fatal(err)
	}
	got := devs[len(devs)-1]
	want := Device{
		BDF:   BDF{Domain: 0, Bus: 0, Device: 6, Function: 0},
		Class: 0x030200, VendorID: 0x10de, DeviceID: 0x2335,
		SubsystemVendorID: 0x10de, SubsystemDeviceID: 0x18bf,
		Driver: "nvidia",
		BARs: []BAR{
			{Index: 0, Start: 0x104002000000, End: 0x104002ffffff, Flags: 0x14220c, SizeBytes: 16 << 20},
			{Index: 2, Start: 0x100000000000, End: 0x103fffffffff, Flags: 0x14220c, SizeBytes: 256 << 30},
			{Index: 4, Start: 0x104000000000, End: 0x104001ffffff, Flags: 0x14220c, SizeBytes: 32 << 20},
		},
		HasROM:      false,
		NUMANode:    -1,
		CurrentLink: Link{Speed: "32.0 GT/s PCIe", Width: 16},
		MaxLink:     Link{Speed: "32.0 GT/s PCIe", Width: 16},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("H200:\n got %+v\nwant %+v", got, want)
	}
	for _, b := range got.BARs {
		if !b.IsMemory() || !b.Prefetchable() || !b.Is64Bit() {
			t.Errorf("BAR%d flags %#x: want 64-bit prefetchable memory", b.Index, b.Flags)
		}
	}
}

func TestScanTwoIdenticalGPUs(t *testing.T) {
	devs, err := Scan(buildTree(t, twoH200Host()...))
	if err != nil {
		t.Fatal(err)
	}
	var gpus []Device
	for _, d := range devs {
		if ok, _ := Classify(d); ok {
			gpus = append(gpus, d)
		}
	}
	if len(gpus) != 2 {
		t.Fatalf("got %d candidates, want 2", len(gpus))
	}
	a, b := gpus[0], gpus[1]
	if a.BDF.String() != "0000:00:06.0" || b.BDF.String() != "0000:00:07.0" {
		t.Errorf("candidates %s, %s; want 0000:00:06.0, 0000:00:07.0 in that order", a.BDF, b.BDF)
	}
	if a.VendorID != b.VendorID || a.DeviceID != b.DeviceID || a.SubsystemDeviceID != b.SubsystemDeviceID {
		t.Errorf("the two cards should have identical ids: %+v / %+v", a, b)
	}
	if a.BDF == b.BDF {
		t.Error("identical cards must differ by bus address")
	}
}

func TestScanAstraDetails(t *testing.T) {
	devs, err := Scan(buildTree(t, astraHost()...))
	if err != nil {
		t.Fatal(err)
	}
	nv, bmc := devs[1], devs[2]
	if !nv.HasROM || nv.Driver != "nvidia" || nv.NUMANode != 0 || nv.MaxLink.Width != 16 {
		t.Errorf("RTX 5070 Ti: %+v", nv)
	}
	if len(nv.BARs) != 4 { // ROM line 6 is not a BAR
		t.Errorf("RTX 5070 Ti has %d BARs, want 4: %+v", len(nv.BARs), nv.BARs)
	}
	if b, _ := bmc.LargestMemoryBAR(); b.SizeBytes != 64<<20 || bmc.Driver != "ast" {
		t.Errorf("ASPEED: largest BAR %d bytes, driver %q", b.SizeBytes, bmc.Driver)
	}
	if devs[0].BDF.Domain != 0 || bmc.BDF.Domain != 3 {
		t.Errorf("domains %d and %d, want 0 and 3", devs[0].BDF.Domain, bmc.BDF.Domain)
	}
}

func TestScanOptionalFilesAbsent(t *testing.T) {
	d := dev("0000:01:00.0", "0x030000", "0x10de", "0x2c05", "<absent>", "<absent>").
		with("numa_node", "<absent>")
	devs, err := Scan(buildTree(t, d))
	if err != nil {
		t.Fatal(err)
	}
	got := devs[0]
	if got.SubsystemVendorID != 0 || got.NUMANode != -1 || got.Driver != "" || got.HasROM ||
		got.CurrentLink != (Link{}) || got.VRAMTotalBytes != 0 || len(got.BARs) != 0 {
		t.Errorf("absent optional files should leave fields unknown: %+v", got)
	}
}

func TestScanMalformed(t *testing.T) {
	base := astraHost()[1]
	tests := []struct {
		name    string
		dev     fakeDev
		file    string // the error must name this file
		wantMsg string
	}{
		{"class garbage", base.with("class", "garbage"), "class", "not a 0x-prefixed hex number"},
		{"class too wide", base.with("class", "0x03000000"), "class", "out of range"},
		{"class empty", base.with("class", ""), "class", "not a 0x-prefixed"},
		{"class missing", base.with("class", "<absent>"), "class", "no such file"},
		{"vendor without 0x", base.with("vendor", "10de"), "vendor", "not a 0x-prefixed"},
		{"vendor missing", base.with("vendor", "<absent>"), "vendor", "no such file"},
		{"device signed", base.with("device", "0x-1"), "device", "not a 0x-prefixed"},
		{"subsystem garbage", base.with("subsystem_device", "0xzz"), "subsystem_device", "invalid syntax"},
		{"resource two fields", base.bar(0, "0x1000 0x1fff"), "resource", "want 3 fields"},
		{"resource end before start", base.bar(0, "0x2000 0x1fff 0x200"), "resource", "before start"},
		{"resource garbage", base.bar(2, "0x1000 0x1fff flags"), "resource", "line 3"},
		{"resource missing", base.with("resource", "<absent>"), "resource", "no such file"},
		{"numa garbage", base.with("numa_node", "zero"), "numa_node", "invalid syntax"},
		{"link width garbage", base.with("current_link_width", "x16"), "current_link_width", "invalid syntax"},
		{"vram negative", base.with("mem_info_vram_total", "-1"), "mem_info_vram_total", "invalid syntax"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := buildTree(t, tt.dev)
			_, err := Scan(root)
			if err == nil {
				t.Fatal("Scan succeeded on a malformed tree")
			}
			path := filepath.Join(root, "sys", "bus", "pci", "devices", tt.dev.bdf, tt.file)
			if !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), tt.wantMsg) {
				t.Errorf("error %q; want it to name %s and say %q", err, path, tt.wantMsg)
			}
		})
	}
}

// TestScanKeepsTheReadableDevices: one entry without its resource file
// does not hide the others; the error names that entry and file.
func TestScanKeepsTheReadableDevices(t *testing.T) {
	host := astraHost()
	bad := host[1].with("resource", "<absent>")
	root := buildTree(t, host[0], bad, host[2])
	devs, err := Scan(root)
	if len(devs) != 2 || devs[0].BDF.String() != host[0].bdf || devs[1].BDF.String() != host[2].bdf {
		t.Errorf("Scan kept %v, want %s and %s", devs, host[0].bdf, host[2].bdf)
	}
	if err == nil || !strings.Contains(err.Error(), "device "+bad.bdf+" left out") ||
		!strings.Contains(err.Error(), filepath.Join(bad.bdf, "resource")) {
		t.Errorf("error %v; want it to name %s and its resource file", err, bad.bdf)
	}
}

func TestScanBadDirectoryName(t *testing.T) {
	root := buildTree(t)
	mkdir(t, filepath.Join(root, "sys", "bus", "pci", "devices", "0000:01:00"))
	if _, err := Scan(root); err == nil || !strings.Contains(err.Error(), "0000:01:00") {
		t.Errorf("Scan error %v; want one naming the bad directory", err)
	}
}

func TestScanNoSysfs(t *testing.T) {
	if _, err := Scan(t.TempDir()); err == nil {
		t.Error("Scan of a root without sys/bus/pci succeeded")
	}
}

// TestScanRunningSystem reads the real sysfs; it skips only where the
// machine has no PCI sysfs at all (not Linux, or a PCI-less container).
func TestScanRunningSystem(t *testing.T) {
	if _, err := os.Stat("/sys/bus/pci/devices"); err != nil {
		t.Skip("no /sys/bus/pci/devices here")
	}
	devs, err := Scan("")
	if err != nil {
		t.Fatal(err)
	}
	for i, d := range devs {
		if i > 0 && devs[i-1].BDF.Compare(d.BDF) >= 0 {
			t.Errorf("not sorted: %s before %s", devs[i-1].BDF, d.BDF)
		}
		if d.BaseClass() == baseClassDisplay {
			ok, reason := Classify(d)
			t.Logf("%s %04x:%04x driver %q candidate=%v: %s", d.BDF, d.VendorID, d.DeviceID, d.Driver, ok, reason)
		}
	}
}

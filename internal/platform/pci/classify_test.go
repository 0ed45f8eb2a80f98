package pci

import (
	"strings"
	"testing"
)

// gpu returns a display device with one memory BAR of the given size.
func gpu(bdf string, class uint32, vendor uint16, barBytes uint64, flags uint64, driver string) Device {
	b, err := ParseBDF(bdf)
	if err != nil {
		panic(err) // test helper with literal input
	}
	d := Device{BDF: b, Class: class, VendorID: vendor, Driver: driver, NUMANode: -1}
	if barBytes > 0 {
		d.BARs = []BAR{{Index: 0, Start: 1 << 40, End: 1<<40 + barBytes - 1, Flags: flags, SizeBytes: barBytes}}
	}
	return d
}

const (
	mem64Pref = FlagMem | FlagPrefetch | FlagMem64
	mem32     = FlagMem
	mib       = 1 << 20
	gib       = 1 << 30
)

func TestClassify(t *testing.T) {
	withVRAM := func(d Device, n uint64) Device { d.VRAMTotalBytes = n; return d }
	tests := []struct {
		name      string
		dev       Device
		candidate bool
		reason    string // substring
	}{
		{"NVIDIA VGA with 16 GiB BAR", gpu("01:00.0", 0x030000, 0x10de, 16*gib, mem64Pref, "nvidia"),
			true, "VGA controller from vendor 0x10de with a 16 GiB prefetchable 64-bit memory BAR"},
		{"3D controller", gpu("00:06.0", 0x030200, 0x10de, 256*gib, mem64Pref, "nvidia"),
			true, "3D controller"},
		{"other display class", gpu("00:06.0", 0x038000, 0x1002, 32*gib, mem64Pref, "amdgpu"),
			true, "display controller (class 0x0380)"},
		{"ASPEED", gpu("0003:02:00.0", 0x030000, 0x1a03, 64*mib, mem32, "ast"),
			false, "ASPEED (BMC display chip)"},
		{"Matrox G200", gpu("03:00.0", 0x030000, 0x102b, 16*mib, mem64Pref, "mgag200"),
			false, "Matrox"},
		{"QEMU stdvga", gpu("00:02.0", 0x030000, 0x1234, 16*mib, mem64Pref, "bochs-drm"),
			false, "QEMU/Bochs"},
		{"virtio-gpu", gpu("00:02.0", 0x030000, 0x1af4, 8*mib, mem64Pref, "virtio-pci"),
			false, "virtio-gpu"},
		{"unknown vendor, 64 MiB BAR", gpu("05:00.0", 0x030000, 0x1d17, 64*mib, mem32, "x"),
			false, "largest memory BAR is 64 MiB"},
		{"unknown vendor, 256 MiB BAR", gpu("05:00.0", 0x030000, 0x1d17, 256*mib, mem64Pref, "x"),
			true, "a 256 MiB prefetchable 64-bit memory BAR"},
		{"no memory BAR", gpu("05:00.0", 0x030200, 0x10de, 0, 0, "nvidia"),
			false, "no memory BAR assigned"},
		{"Intel iGPU", gpu("00:02.0", 0x030000, 0x8086, 256*mib, mem64Pref, "i915"),
			false, "integrated GPU"},
		{"Intel Arc off the root bus", gpu("03:00.0", 0x030000, 0x8086, 256*mib, mem64Pref, "xe"),
			true, "a 256 MiB"},
		{"Intel Arc with resizable BAR on a VM's root bus", gpu("00:05.0", 0x030000, 0x8086, 16*gib, mem64Pref, "xe"),
			true, "16 GiB"},
		{"AMD APU carve-out", withVRAM(gpu("c1:00.0", 0x030000, 0x1002, 256*mib, mem64Pref, "amdgpu"), 512*mib),
			false, "only 512 MiB of VRAM"},
		{"AMD discrete without resizable BAR", withVRAM(gpu("03:00.0", 0x030000, 0x1002, 256*mib, mem64Pref, "amdgpu"), 16*gib),
			true, "16 GiB of VRAM reported by amdgpu"},
		{"AMD discrete, VRAM outweighs a small BAR", withVRAM(gpu("03:00.0", 0x030000, 0x1002, 32*mib, mem64Pref, "amdgpu"), 8*gib),
			true, "8 GiB of VRAM"},
		{"unbound GPU", gpu("01:00.0", 0x030200, 0x10de, 64*gib, mem64Pref, ""),
			true, "no kernel driver bound"},
		{"GPU held by vfio-pci", gpu("01:00.0", 0x030200, 0x10de, 64*gib, mem64Pref, "vfio-pci"),
			true, "bound to vfio-pci"},
		{"audio function of a GPU", gpu("03:00.1", 0x040300, 0x1002, 16*1024, mem32, "snd_hda_intel"),
			false, "not a display controller (class 0x040300)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cand, reason := Classify(tt.dev)
			if cand != tt.candidate || !strings.Contains(reason, tt.reason) {
				t.Errorf("Classify = %v, %q; want %v and a reason containing %q", cand, reason, tt.candidate, tt.reason)
			}
		})
	}
}

func TestFormatBytes(t *testing.T) {
	tests := []struct {
		n    uint64
		want string
	}{
		{0, "0 B"}, {128, "128 B"}, {64 * mib, "64 MiB"}, {3 * gib / 2, "1.5 GiB"}, {256 * gib, "256 GiB"},
	}
	for _, tt := range tests {
		if got := formatBytes(tt.n); got != tt.want {
			t.Errorf("formatBytes(%d) = %q, want %q", tt.n, got, tt.want)
		}
	}
}

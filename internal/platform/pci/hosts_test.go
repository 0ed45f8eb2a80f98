package pci

// Fake hosts for the tests. Where a value was captured from a real machine
// the comment says so; the rest is invented but in the kernel's format.

// Resource flag words as the kernel prints them.
const (
	flags64Pref    = "0x000000000014220c" // MEM_64|SIZEALIGN|PREFETCH|MEM, BAR bits 0xc
	flags64NonPref = "0x0000000000140204" // MEM_64|SIZEALIGN|MEM, BAR bits 0x4
	flags32NonPref = "0x0000000000040200" // SIZEALIGN|MEM
	flagsIO        = "0x0000000000040101" // SIZEALIGN|IO
	flagsROM       = "0x0000000000046200" // SIZEALIGN|READONLY|PREFETCH|MEM
	flagsWindow    = "0x0000000000001200" // bridge memory window
)

// astraHost is the seed's first host (aarch64): the RTX 5070 Ti at
// 0000:01:00.0 and the board's ASPEED BMC display at 0003:02:00.0 (ids and
// addresses from the design doc), plus a root port, an NVMe drive and a
// NIC. Subsystem ids, BAR addresses and the other devices are invented.
func astraHost() []fakeDev {
	return []fakeDev{
		dev("0000:00:00.0", "0x060400", "0x1def", "0xe100", "0x0000", "0x0000").
			bar(14, "0x0000300000000000 0x00003007ffffffff "+flagsWindow).
			bound("pcieport"),
		dev("0000:01:00.0", "0x030000", "0x10de", "0x2c05", "0x10de", "0x0000").
			bar(0, "0x0000300008000000 0x000030000bffffff "+flags32NonPref).
			bar(1, "0x0000300400000000 0x00003007ffffffff "+flags64Pref).
			bar(3, "0x0000300010000000 0x0000300011ffffff "+flags64Pref).
			bar(5, "0x0000000000001000 0x000000000000107f "+flagsIO).
			bar(6, "0x000030000c000000 0x000030000c07ffff "+flagsROM).
			with("numa_node", "0").link("32.0 GT/s PCIe", "16").
			bound("nvidia").withROM(),
		dev("0003:02:00.0", "0x030000", "0x1a03", "0x2000", "0x1a03", "0x2000").
			bar(0, "0x0000340000000000 0x0000340003ffffff "+flags32NonPref).
			bar(1, "0x0000340004000000 0x000034000403ffff "+flags32NonPref).
			bar(2, "0x0000000000002000 0x000000000000207f "+flagsIO).
			with("numa_node", "0").link("5.0 GT/s PCIe", "1").
			bound("ast"),
		dev("0004:01:00.0", "0x010802", "0x144d", "0xa80a", "0x144d", "0xa801").
			bar(0, "0x0000380000000000 0x0000380000003fff "+flags64NonPref).
			with("numa_node", "0").link("16.0 GT/s PCIe", "4").
			bound("nvme"),
		dev("0005:01:00.0", "0x020000", "0x8086", "0x1521", "0x8086", "0x0001").
			bar(0, "0x00003c0000000000 0x00003c00000fffff "+flags32NonPref).
			bar(3, "0x00003c0000100000 0x00003c0000103fff "+flags32NonPref).
			with("numa_node", "0").link("5.0 GT/s PCIe", "4").
			bound("igb"),
	}
}

// h200Devices is the H200 microVM's PCI bus as captured there (2026,
// driver 580.159.04): host bridge, virtio devices and the GPU at 00:06.0.
func h200Devices() []fakeDev {
	virtio := func(bdf, class, id, bar0 string) fakeDev {
		return dev(bdf, class, "0x1af4", id, "0x1af4", id).bar(0, bar0+" "+flags64NonPref).bound("virtio-pci")
	}
	return []fakeDev{
		dev("0000:00:00.0", "0x060000", "0x8086", "0x0d57", "0x0000", "0x0000"),
		virtio("0000:00:01.0", "0x018000", "0x1042", "0x0000004000000000 0x000000400007ffff"),
		virtio("0000:00:02.0", "0x018000", "0x1042", "0x0000004000080000 0x00000040000fffff"),
		virtio("0000:00:03.0", "0x020000", "0x1041", "0x0000004000100000 0x000000400017ffff"),
		virtio("0000:00:04.0", "0xffff00", "0x1053", "0x0000004000180000 0x00000040001fffff"),
		virtio("0000:00:05.0", "0xffff00", "0x1044", "0x0000004000200000 0x000000400027ffff"),
		h200("0000:00:06.0",
			"0x0000104002000000 0x0000104002ffffff",
			"0x0000100000000000 0x0000103fffffffff",
			"0x0000104000000000 0x0000104001ffffff"),
	}
}

// h200 returns an H200 as captured at 0000:00:06.0: three 64-bit
// prefetchable BARs at indices 0, 2 and 4 (16 MiB, 256 GiB, 32 MiB), no rom
// file, driver nvidia. The BAR ranges are "0xstart 0xend" pairs.
func h200(bdf, bar0, bar2, bar4 string) fakeDev {
	return dev(bdf, "0x030200", "0x10de", "0x2335", "0x10de", "0x18bf").
		bar(0, bar0+" "+flags64Pref).
		bar(2, bar2+" "+flags64Pref).
		bar(4, bar4+" "+flags64Pref).
		link("32.0 GT/s PCIe", "16").bound("nvidia")
}

// twoH200Host has two identical H200s (addresses as on the project's
// two-GPU host; the second card's BAR addresses are invented).
func twoH200Host() []fakeDev {
	host := h200Devices()
	return append(host, h200("0000:00:07.0",
		"0x0000108002000000 0x0000108002ffffff",
		"0x0000110000000000 0x0000113fffffffff",
		"0x0000108000000000 0x0000108001ffffff"))
}

// desktopHost has an Intel iGPU at 0000:00:02.0 and a discrete AMD card
// behind AMD's upstream/downstream switch pair, with its HDMI audio
// function. All ids and addresses are invented in the kernel's format.
func desktopHost() []fakeDev {
	return []fakeDev{
		dev("0000:00:02.0", "0x030000", "0x8086", "0xa780", "0x1043", "0x8882").
			bar(0, "0x0000006000000000 0x0000006000ffffff "+flags64NonPref).
			bar(2, "0x0000004000000000 0x000000400fffffff "+flags64Pref).
			bar(4, "0x0000000000004000 0x000000000000403f "+flagsIO).
			bound("i915").withROM(),
		dev("0000:01:00.0", "0x060400", "0x1002", "0x1478", "0x0000", "0x0000").bound("pcieport"),
		dev("0000:02:00.0", "0x060400", "0x1002", "0x1479", "0x1002", "0x1479").bound("pcieport"),
		dev("0000:03:00.0", "0x030000", "0x1002", "0x744c", "0x1da2", "0x471e").
			bar(0, "0x0000007800000000 0x000000780fffffff "+flags64Pref).
			bar(2, "0x0000007810000000 0x00000078101fffff "+flags64Pref).
			bar(4, "0x0000000000003000 0x00000000000030ff "+flagsIO).
			bar(5, "0x0000000080000000 0x00000000800fffff "+flags32NonPref).
			with("mem_info_vram_total", "25769803776").
			link("16.0 GT/s PCIe", "16").bound("amdgpu").withROM(),
		dev("0000:03:00.1", "0x040300", "0x1002", "0xab30", "0x1da2", "0xab30").
			bar(0, "0x0000000080100000 0x0000000080103fff "+flags32NonPref).
			bound("snd_hda_intel"),
	}
}

package cpu

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

// writeCache writes one sysfs cache index directory under root.
func writeCache(t *testing.T, root string, cpu, index int, level, kind, size, shared string) {
	t.Helper()
	dir := filepath.Join(root, "sys/devices/system/cpu", "cpu"+strconv.Itoa(cpu), "cache", "index"+strconv.Itoa(index))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, v := range map[string]string{"level": level, "type": kind, "size": size, "shared_cpu_list": shared} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(v+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func TestLastLevelCacheTwoSockets(t *testing.T) {
	root := t.TempDir()
	for cpu := range 4 {
		socket := "0-1"
		if cpu >= 2 {
			socket = "2-3"
		}
		writeCache(t, root, cpu, 0, "1", "Data", "48K", strconv.Itoa(cpu))
		writeCache(t, root, cpu, 1, "1", "Instruction", "32K", strconv.Itoa(cpu))
		writeCache(t, root, cpu, 2, "2", "Unified", "2048K", strconv.Itoa(cpu))
		writeCache(t, root, cpu, 3, "3", "Unified", "105M", socket)
	}
	got, err := lastLevelCache(root)
	if err != nil || got != 2*105*mib {
		t.Errorf("lastLevelCache = %d, %v; want two sockets of 105 MiB", got, err)
	}
}

func TestLastLevelCacheNoL3(t *testing.T) {
	root := t.TempDir()
	writeCache(t, root, 0, 0, "1", "Data", "64K", "0")
	writeCache(t, root, 0, 1, "1", "Instruction", "64K", "0")
	writeCache(t, root, 0, 2, "2", "Unified", "1M", "0-3")
	writeCache(t, root, 1, 2, "2", "Unified", "1M", "0-3")
	if got, err := lastLevelCache(root); err != nil || got != 1*mib {
		t.Errorf("lastLevelCache = %d, %v; want the shared 1 MiB L2", got, err)
	}
}

func TestLastLevelCacheAbsentOrBad(t *testing.T) {
	if got, err := lastLevelCache(t.TempDir()); err != nil || got != 0 {
		t.Errorf("no sysfs: %d, %v; want 0", got, err)
	}
	root := t.TempDir()
	writeCache(t, root, 0, 3, "3", "Unified", "lots", "0")
	if _, err := lastLevelCache(root); err == nil {
		t.Error("a malformed size was accepted")
	}
}

func TestParseCacheSize(t *testing.T) {
	for in, want := range map[string]uint64{"48K": 48 << 10, "32M": 32 << 20, "1G": 1 << 30, "512": 512} {
		if got, err := parseCacheSize(in); err != nil || got != want {
			t.Errorf("parseCacheSize(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "K", "12Q", "-1K"} {
		if _, err := parseCacheSize(bad); err == nil {
			t.Errorf("parseCacheSize(%q) succeeded", bad)
		}
	}
}

package host

import (
	"os"
	"path/filepath"
	"testing"
)

func writeTree(t *testing.T, files map[string]string) string {
	t.Helper()
	root := t.TempDir()
	for name, body := range files {
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

func TestReadArm64Host(t *testing.T) {
	root := writeTree(t, map[string]string{
		"proc/sys/kernel/hostname":      "astra\n",
		"proc/cpuinfo":                  "processor\t: 0\nBogoMIPS\t: 50.00\nCPU implementer\t: 0x41\nCPU part\t: 0xd0c\n\nprocessor\t: 1\nCPU implementer\t: 0x41\n",
		"sys/class/dmi/id/sys_vendor":   "GIGABYTE\n",
		"sys/class/dmi/id/board_name":   "MP32-AR1-00\n",
		"sys/class/dmi/id/board_vendor": "GIGABYTE\n",
		"sys/class/dmi/id/product_name": "Default string\n",
	})
	h, err := Read(root)
	if err != nil {
		t.Fatal(err)
	}
	if h.Hostname != "astra" || h.CPUModel != "arm64 implementer 0x41 part 0xd0c" || h.DMIString != "GIGABYTE / MP32-AR1-00" {
		t.Fatalf("got %+v", h)
	}
}

func TestReadX86Host(t *testing.T) {
	root := writeTree(t, map[string]string{
		"proc/sys/kernel/hostname": "gpu-box\n",
		"proc/cpuinfo":             "processor\t: 0\nmodel name\t: AMD EPYC 9654 96-Core Processor\n",
	})
	h, err := Read(root)
	if err != nil {
		t.Fatal(err)
	}
	if h.CPUModel != "AMD EPYC 9654 96-Core Processor" || h.DMIString != "" || h.LogicalCPUs < 1 {
		t.Fatalf("got %+v", h)
	}
}

func TestReadNeedsHostname(t *testing.T) {
	if _, err := Read(t.TempDir()); err == nil {
		t.Fatal("no hostname, no error")
	}
}

package pci

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fakeDev describes one device of a fake sysfs tree.
type fakeDev struct {
	bdf    string
	files  map[string]string // file name -> content, written with a newline
	bars   map[int]string    // resource line index -> "0xstart 0xend 0xflags"
	driver string            // "" leaves the device unbound
	rom    bool
}

// zeroResource is an unused line of a sysfs resource file.
const zeroResource = "0x0000000000000000 0x0000000000000000 0x0000000000000000"

// endpointResourceLines is how many lines the kernel writes in the resource
// file of a non-bridge device: 6 BARs, the ROM and 6 SR-IOV BARs.
const endpointResourceLines = 13

// dev returns a fake device with the id files every PCI device has.
func dev(bdf, class, vendor, device, subVendor, subDevice string) fakeDev {
	return fakeDev{
		bdf: bdf,
		files: map[string]string{
			"class": class, "vendor": vendor, "device": device,
			"subsystem_vendor": subVendor, "subsystem_device": subDevice,
			"numa_node": "-1",
		},
		bars: map[int]string{},
	}
}

// with returns a copy of d with a file set (content "" still writes it).
func (d fakeDev) with(name, content string) fakeDev {
	files := make(map[string]string, len(d.files)+1)
	for k, v := range d.files {
		files[k] = v
	}
	files[name] = content
	d.files = files
	return d
}

// bar returns a copy of d with resource line i set.
func (d fakeDev) bar(i int, line string) fakeDev {
	bars := make(map[int]string, len(d.bars)+1)
	for k, v := range d.bars {
		bars[k] = v
	}
	bars[i] = line
	d.bars = bars
	return d
}

// bound returns a copy of d bound to driver.
func (d fakeDev) bound(driver string) fakeDev { d.driver = driver; return d }

// withROM returns a copy of d with a "rom" file.
func (d fakeDev) withROM() fakeDev { d.rom = true; return d }

// link returns a copy of d with current and max link files.
func (d fakeDev) link(speed, width string) fakeDev {
	return d.with("current_link_speed", speed).with("current_link_width", width).
		with("max_link_speed", speed).with("max_link_width", width)
}

// resource renders the resource file: endpointResourceLines lines, more
// when d sets a later line (bridge windows).
func (d fakeDev) resource() string {
	n := endpointResourceLines
	for i := range d.bars {
		n = max(n, i+1)
	}
	lines := make([]string, n)
	for i := range lines {
		lines[i] = zeroResource
		if l, ok := d.bars[i]; ok {
			lines[i] = l
		}
	}
	return strings.Join(lines, "\n") + "\n"
}

// buildTree writes devs as a sysfs tree under a new temporary root the way
// Linux lays it out: real directories under sys/devices, symlinks to them
// in sys/bus/pci/devices, and a driver symlink into sys/bus/pci/drivers.
// A file name mapped to the content "<absent>" is not written.
func buildTree(t *testing.T, devs ...fakeDev) string {
	t.Helper()
	root := t.TempDir()
	busDir := filepath.Join(root, "sys", "bus", "pci", "devices")
	mkdir(t, busDir)
	for _, d := range devs {
		dir := filepath.Join(root, "sys", "devices", "pci"+d.bdf[:7], d.bdf)
		mkdir(t, dir)
		symlink(t, dir, filepath.Join(busDir, d.bdf))
		files := d.files
		if _, ok := files["resource"]; !ok {
			files = d.with("resource", strings.TrimSuffix(d.resource(), "\n")).files
		}
		for name, content := range files {
			if content == "<absent>" {
				continue
			}
			write(t, filepath.Join(dir, name), content+"\n")
		}
		if d.rom {
			write(t, filepath.Join(dir, "rom"), "")
		}
		if d.driver != "" {
			drv := filepath.Join(root, "sys", "bus", "pci", "drivers", d.driver)
			mkdir(t, drv)
			symlink(t, drv, filepath.Join(dir, "driver"))
		}
	}
	return root
}

// symlink makes a relative symlink at link pointing to target.
func symlink(t *testing.T, target, link string) {
	t.Helper()
	rel, err := filepath.Rel(filepath.Dir(link), target)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(rel, link); err != nil {
		t.Fatal(err)
	}
}

func mkdir(t *testing.T, dir string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
}

func write(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

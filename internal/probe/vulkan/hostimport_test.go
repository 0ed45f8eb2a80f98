package vulkan

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"syscall"
	"testing"
	"unsafe"
)

func TestImportLayout(t *testing.T) {
	for _, c := range []struct {
		n, minAlign uint64
		page        int
		size, align uint64
	}{
		{1 << 20, 4096, 4096, 2 << 20, 2 << 20},
		{2 << 20, 4096, 4096, 2 << 20, 2 << 20},
		{2<<20 + 4, 4096, 4096, 4 << 20, 2 << 20},
		{256 << 20, 4096, 65536, 256 << 20, 2 << 20},
		{4, 0, 65536, 2 << 20, 2 << 20},
		{0, 4096, 4096, 2 << 20, 2 << 20},
		{5 << 20, 4 << 20, 4096, 8 << 20, 4 << 20},
		{1 << 20, 4096, 4 << 20, 4 << 20, 4 << 20},
	} {
		size, align := importLayout(c.n, c.minAlign, c.page)
		if size != c.size || align != c.align {
			t.Errorf("importLayout(%d, %d, %d) = %d, %d; want %d, %d", c.n, c.minAlign, c.page, size, align, c.size, c.align)
		}
	}
	for _, c := range [][3]uint64{{0, 8, 0}, {1, 8, 8}, {8, 8, 8}, {9, 8, 16}, {1<<21 - 1, 1 << 21, 1 << 21}} {
		if got := alignUp(c[0], c[1]); got != c[2] {
			t.Errorf("alignUp(%d, %d) = %d, want %d", c[0], c[1], got, c[2])
		}
	}
}

func TestMapHost(t *testing.T) {
	page := os.Getpagesize()
	size, align := importLayout(3<<20, 4096, page)
	mapping, data, err := mapHost(size, align, page)
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := syscall.Munmap(mapping); err != nil {
			t.Error(err)
		}
	}()
	addr := uint64(uintptr(unsafe.Pointer(&data[0])))
	if addr%align != 0 || uint64(len(data)) != size || uint64(cap(data)) != size {
		t.Fatalf("data at %#x, %d bytes (cap %d); want %d-aligned, %d bytes", addr, len(data), cap(data), align, size)
	}
	for i := range data {
		data[i] = byte(i)
	}
	t.Logf("%d MiB mapped at %#x, %d KiB of it in huge pages", size>>20, addr, anonHugeKiB(addr))
}

// TestImportedBuffer copies through a buffer of imported host memory when
// the device offers it, and checks that it is not offered otherwise.
func TestImportedBuffer(t *testing.T) {
	d := newDevice(t)
	_, offered := d.hostImportAlign()
	t.Logf("%s: %s listed %v, import offered %v", d.Info.Name, extExternalMemoryHost, d.Info.HasExtension(extExternalMemoryHost), offered)
	const n = 3<<20 + 4096
	b, m, err := d.newImportedBuffer(n)
	if !offered {
		if !errors.Is(err, errNoHostMemory) || b != nil {
			t.Fatalf("no import: got %v, %v; want errNoHostMemory", b, err)
		}
		return
	}
	if err != nil {
		t.Fatal(err)
	}
	defer b.Release()
	if !m.imported || m.name() != "host-imported" || b.host == nil || b.Size() != n {
		t.Fatalf("imported buffer: kind %+v (%s), host %v, size %d", m, m.name(), b.host != nil, b.Size())
	}
	if addr := uintptr(b.mapped); addr%hugePageBytes != 0 {
		t.Errorf("imported memory at %#x, not %d-aligned", addr, hugePageBytes)
	}
	dev, err := d.NewBuffer(n, false)
	if err != nil {
		t.Fatal(err)
	}
	defer dev.Release()
	for r := uint32(1); r <= 3; r++ {
		fillPattern(b.words(), r)
		if err := d.copyBuffer(b, dev, n); err != nil {
			t.Fatal(err)
		}
		fillWord(b.words(), poisonWord)
		if err := d.copyBuffer(dev, b, n); err != nil {
			t.Fatal(err)
		}
		if err := checkPattern(b.words(), r); err != nil {
			t.Fatalf("round %d: %v", r, err)
		}
	}
	b.Release()
	b.Release()
	if b.host != nil || b.mapped != nil || b.mem != nil {
		t.Error("Release left memory behind")
	}
}

// TestHostKindPaths checks that the bulk path and the uploader offer
// "host-imported" exactly when the device imports host memory, on every
// queue, with ident paths; and, with the extension hidden from the list,
// that the path is simply not offered.
func TestHostKindPaths(t *testing.T) {
	for _, hide := range []bool{false, true} {
		t.Run(fmt.Sprintf("hidden=%v", hide), func(t *testing.T) {
			d := newDevice(t)
			if hide {
				d.Info.Extensions = slices.DeleteFunc(slices.Clone(d.Info.Extensions), func(e string) bool { return e == extExternalMemoryHost })
			}
			testHostKindPaths(t, d)
		})
	}
}

func testHostKindPaths(t *testing.T, d *Device) {
	_, offered := d.hostImportAlign()
	t.Logf("import offered %v", offered)
	if offered && !d.Info.HasExtension(extExternalMemoryHost) {
		t.Fatal("import offered without the extension listed")
	}
	for _, r := range d.routes() {
		name := r.name(true)
		up, down, checked, err := d.bulkOn(t.Context(), r, 1<<20, hostImported, TransferOptions{Quick: true})
		if !offered {
			if !errors.Is(err, errNoHostMemory) {
				t.Errorf("%s: no import: err = %v, want errNoHostMemory", name, err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		want := transferPathPrefix + name + ".host-imported"
		if up.Path != want || !strings.HasPrefix(down.Path, transferPathPrefix+r.name(false)+".host-") || checked == 0 {
			t.Errorf("%s: paths %q, %q (%d words checked); want %q up", name, up.Path, down.Path, checked, want)
		}
		for _, p := range []string{up.Path, down.Path} {
			if !identRe.MatchString(p) || d.queueNamed(t, p) != r.q {
				t.Errorf("path %q: not an ident naming %s", p, r.q.name)
			}
		}
		t.Logf("%s: up %s %.2f GB/s, down %s %.2f GB/s", name, up.Path, up.BytesPerS.Median/1e9, down.Path, down.BytesPerS.Median/1e9)
	}
	u := newTestUploader(t, d)
	imported := 0
	for _, m := range u.methods(false) {
		if !identRe.MatchString(m.path) {
			t.Errorf("path %q is not an ident", m.path)
		}
		if !isWrite(m.path) {
			d.queueNamed(t, m.path)
		}
		if strings.Contains(m.path, ".host-imported.") {
			imported++
			if _, err := m.once(); err != nil {
				t.Fatalf("%s: %v", m.path, err)
			}
		}
	}
	if want := 2 * len(d.routes()); offered && imported != want || !offered && imported != 0 {
		t.Errorf("%d host-imported upload methods, import offered %v", imported, offered)
	}
	if err := u.check(); err != nil {
		t.Fatal(err)
	}
}

// anonHugeKiB returns the AnonHugePages of the mapping holding addr, in
// KiB, from /proc/self/smaps (-1 when unreadable): how much of it the
// kernel did back with transparent huge pages.
func anonHugeKiB(addr uint64) int {
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		return -1
	}
	defer f.Close()
	in := false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		var lo, hi uint64
		if n, _ := fmt.Sscanf(line, "%x-%x ", &lo, &hi); n == 2 {
			in = lo <= addr && addr < hi
			continue
		}
		var kib int
		if in && strings.HasPrefix(line, "AnonHugePages:") {
			if _, err := fmt.Sscanf(line, "AnonHugePages: %d kB", &kib); err == nil {
				return kib
			}
		}
	}
	return -1
}

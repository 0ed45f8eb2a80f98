package link

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	vulkan "github.com/everycycle/appraise/coopmat/vk"
	"github.com/everycycle/appraise/internal/vkprobe/vktest"
)

// TestImportedBuffer copies through a buffer of imported host memory when
// the device offers it, and checks that it is not offered otherwise.
func TestImportedBuffer(t *testing.T) {
	d := vktest.Device(t)
	_, offered := d.HostImportAlign()
	t.Logf("%s: %s listed %v, import offered %v", d.Info.Name, vulkan.ExtExternalMemoryHost, d.Info.HasExtension(vulkan.ExtExternalMemoryHost), offered)
	const n = 3<<20 + 4096
	b, m, err := d.NewImportedBuffer(n)
	if !offered {
		if !errors.Is(err, vulkan.ErrNoHostMemory) || b != nil {
			t.Fatalf("no import: got %v, %v; want errNoHostMemory", b, err)
		}
		return
	}
	if err != nil {
		t.Fatal(err)
	}
	defer b.Release()
	if !m.Imported || m.Name() != "host-imported" || b.Host == nil || b.Size() != n {
		t.Fatalf("imported buffer: kind %+v (%s), host %v, size %d", m, m.Name(), b.Host != nil, b.Size())
	}
	if addr := uintptr(b.Mapped); addr%vulkan.HugePageBytes != 0 {
		t.Errorf("imported memory at %#x, not %d-aligned", addr, vulkan.HugePageBytes)
	}
	dev, err := d.NewBuffer(n, false)
	if err != nil {
		t.Fatal(err)
	}
	defer dev.Release()
	for r := uint32(1); r <= 3; r++ {
		fillPattern(b.Words(), r)
		if err := d.CopyBuffer(b, dev, n); err != nil {
			t.Fatal(err)
		}
		fillWord(b.Words(), poisonWord)
		if err := d.CopyBuffer(dev, b, n); err != nil {
			t.Fatal(err)
		}
		if err := checkPattern(b.Words(), r); err != nil {
			t.Fatalf("round %d: %v", r, err)
		}
	}
	b.Release()
	b.Release()
	if b.Host != nil || b.Mapped != nil || b.Mem != nil {
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
			d := vktest.Device(t)
			if hide {
				d.Info.Extensions = slices.DeleteFunc(slices.Clone(d.Info.Extensions), func(e string) bool { return e == vulkan.ExtExternalMemoryHost })
			}
			testHostKindPaths(t, d)
		})
	}
}

func testHostKindPaths(t *testing.T, d *vulkan.Device) {
	_, offered := d.HostImportAlign()
	t.Logf("import offered %v", offered)
	if offered && !d.Info.HasExtension(vulkan.ExtExternalMemoryHost) {
		t.Fatal("import offered without the extension listed")
	}
	for _, r := range routes(d) {
		name := r.name(true)
		up, down, checked, err := bulkOn(t.Context(), d, r, 1<<20, vulkan.HostImported, TransferOptions{Quick: true})
		if !offered {
			if !errors.Is(err, vulkan.ErrNoHostMemory) {
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
			if !identRe.MatchString(p) || queueNamed(d, t, p) != r.q {
				t.Errorf("path %q: not an ident naming %s", p, r.q.Name)
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
			queueNamed(d, t, m.path)
		}
		if strings.Contains(m.path, ".host-imported.") {
			imported++
			if _, err := m.once(); err != nil {
				t.Fatalf("%s: %v", m.path, err)
			}
		}
	}
	if want := 2 * len(routes(d)); offered && imported != want || !offered && imported != 0 {
		t.Errorf("%d host-imported upload methods, import offered %v", imported, offered)
	}
	if err := u.check(); err != nil {
		t.Fatal(err)
	}
}

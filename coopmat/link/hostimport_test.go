package link

import (
	"errors"
	"fmt"
	"slices"
	"testing"

	vulkan "github.com/everycycle/appraise/coopmat/vk"
	"github.com/everycycle/appraise/coopmat/vk/vktest"
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

// TestHostKindPaths checks that the rule's kernel candidate pulls from
// "host-imported" memory exactly when the device imports host memory, and
// pushes into host-cached memory, with ident paths; and, with the
// extension hidden from the list, that it pulls from host-cached memory.
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
	cs := bulkCandidates(featuresOf(d, TransferOptions{}), d.Queue, d.CopyQ)
	if cs[0].route == nil || !cs[0].route.shader {
		t.Fatalf("first candidate %+v, want the kernel", cs[0])
	}
	p, err := newBulkPath(d, cs[0], 1<<20, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer p.release()
	up, down := p.paths()
	from := ".host-cached"
	if offered {
		from = ".host-imported"
	}
	r := cs[0].route
	if up.Path != transferPathPrefix+r.name(true)+from || down.Path != transferPathPrefix+r.name(false)+".host-cached" {
		t.Errorf("paths %q, %q; want the pull from %s, the push into host-cached", up.Path, down.Path, from)
	}
	for _, path := range []string{up.Path, down.Path} {
		if !identRe.MatchString(path) || queueNamed(d, t, path) != r.q {
			t.Errorf("path %q: not an ident naming %s", path, r.q.Name)
		}
	}
	if _, _, err := p.once(); err != nil || p.words() != 1<<18 {
		t.Errorf("one round: %v, %d words checked", err, p.words())
	}
}

package occupancy

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
)

// amdgpuFdinfo is an amdgpu client's fdinfo as Linux 6.8 writes it, with
// its gfx engine counter at gfxNS.
func amdgpuFdinfo(id int, gfxNS uint64) string {
	return fmt.Sprintf(`pos:	0
flags:	02100002
mnt_id:	26
ino:	1080
drm-driver:	amdgpu
drm-client-id:	%d
drm-pdev:	0000:03:00.0
pasid:	32773
drm-memory-vram:	1048576 KiB
drm-memory-gtt: 	2048 KiB
drm-memory-cpu: 	0 KiB
drm-resident-vram:	2097152 KiB
drm-resident-gtt:	2048 KiB
drm-engine-gfx:	%d ns
drm-engine-compute:	1500 ns
drm-engine-dma:	0 ns
`, id, gfxNS)
}

// xeFdinfo is an Intel xe client's: cycle counters, the GPU's total
// cycles (which advance whoever runs) and engine capacities.
const xeFdinfo = `pos:	0
flags:	02100002
drm-driver:	xe
drm-client-id:	7
drm-pdev:	0000:00:02.0
drm-total-local0:	0
drm-resident-local0:	0
drm-cycles-rcs:	28257900
drm-total-cycles-rcs:	7655183225
drm-cycles-bcs:	0
drm-total-cycles-bcs:	7655183225
drm-engine-capacity-ccs:	4
`

// fakeProc is a /proc (and sysfs) tree below a test's directory.
type fakeProc struct {
	t    *testing.T
	root string
}

func newFakeProc(t *testing.T) fakeProc {
	return fakeProc{t, t.TempDir()}
}

func (f fakeProc) write(rel, text string) {
	f.t.Helper()
	p := filepath.Join(f.root, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		f.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		f.t.Fatal(err)
	}
}

// process adds pid, a child of ppid, named comm.
func (f fakeProc) process(pid, ppid int, comm string) {
	dir := filepath.Join("proc", strconv.Itoa(pid))
	f.write(filepath.Join(dir, "comm"), comm+"\n")
	f.write(filepath.Join(dir, "status"), fmt.Sprintf("Name:\t%s\nTgid:\t%d\nPid:\t%d\nPPid:\t%d\n", comm, pid, pid, ppid))
	f.write(filepath.Join(dir, "fdinfo", "0"), "pos:\t0\nflags:\t02\nmnt_id:\t1\nino:\t3\n")
}

func (f fakeProc) fdinfo(pid, fd int, text string) {
	f.write(filepath.Join("proc", strconv.Itoa(pid), "fdinfo", strconv.Itoa(fd)), text)
}

func TestParseFdinfo(t *testing.T) {
	c, ok := ParseFdinfo([]byte(amdgpuFdinfo(40, 1000000)))
	want := Client{ID: 40, PDev: "0000:03:00.0", Activity: 1001500, Engines: true, MemoryBytes: 2 << 30, MemoryKnown: true}
	if !ok || c != want {
		t.Errorf("amdgpu: %+v, %v\nwant %+v", c, ok, want)
	}
	c, ok = ParseFdinfo([]byte(xeFdinfo))
	want = Client{ID: 7, PDev: "0000:00:02.0", Activity: 28257900, Engines: true, MemoryKnown: true}
	if !ok || c != want {
		t.Errorf("xe: %+v, %v\nwant %+v", c, ok, want)
	}
	for name, text := range map[string]string{
		"a plain file":      "pos:\t0\nflags:\t02\nmnt_id:\t1\n",
		"no pdev":           "drm-driver:\tvirtio_gpu\ndrm-client-id:\t3\ndrm-engine-gfx:\t5 ns\n",
		"no client id":      "drm-driver:\tamdgpu\ndrm-pdev:\t0000:03:00.0\n",
		"a malformed pdev":  "drm-client-id:\t3\ndrm-pdev:\tplatform\n",
		"a malformed id":    "drm-client-id:\tx\ndrm-pdev:\t0000:03:00.0\n",
		"nothing but blank": "",
	} {
		if c, ok := ParseFdinfo([]byte(text)); ok {
			t.Errorf("%s: read as a client %+v", name, c)
		}
	}
	if c, _ := ParseFdinfo([]byte("drm-client-id:\t3\ndrm-pdev:\t0000:03:00.0\n")); c.Engines || c.MemoryKnown {
		t.Errorf("a client without counters: %+v", c)
	}
}

// TestScanClients: each client once, whichever of its descriptors and
// processes it is found through; non-DRM files and non-process entries
// passed over.
func TestScanClients(t *testing.T) {
	f := newFakeProc(t)
	f.process(100, 1, "appraise")
	f.fdinfo(100, 5, amdgpuFdinfo(1, 10))
	f.process(300, 1, "python3")
	f.fdinfo(300, 7, amdgpuFdinfo(40, 500))
	f.fdinfo(300, 8, amdgpuFdinfo(40, 500)) // dup(7): the same client
	f.process(250, 300, "worker")
	f.fdinfo(250, 3, amdgpuFdinfo(40, 500)) // inherited from 300
	f.fdinfo(300, 9, xeFdinfo)
	f.write("proc/self/fdinfo/1", amdgpuFdinfo(99, 1))
	f.write("proc/cpuinfo", "model name: x\n")
	cs, err := ScanClients(f.root)
	if err != nil {
		t.Fatal(err)
	}
	if len(cs) != 3 {
		t.Fatalf("%d clients, want 3: %+v", len(cs), cs)
	}
	if c := cs[ClientKey{"0000:03:00.0", 40}]; c.PID != 250 || c.Activity != 1500+500 {
		t.Errorf("shared client: %+v; want pid 250 (the lowest)", c)
	}
	if got := cs.Of("0000:03:00.0"); len(got) != 2 {
		t.Errorf("Of(0000:03:00.0) = %+v; want 2 clients", got)
	}
	if _, err := ScanClients(filepath.Join(f.root, "nowhere")); err == nil {
		t.Error("a root without /proc scanned")
	}
}

// TestActive: a client counts when its counters grew, or when it is new
// and has run work; an idle one, ours and our child's never do.
func TestActive(t *testing.T) {
	const pdev = "0000:03:00.0"
	client := func(pid int, id uint64, activity uint64) Client {
		return Client{PID: pid, ID: id, PDev: pdev, Activity: activity, Engines: true}
	}
	set := func(cs ...Client) Clients {
		out := Clients{}
		for _, c := range cs {
			out[ClientKey{c.PDev, c.ID}] = c
		}
		return out
	}
	before := set(client(300, 1, 1000), client(400, 2, 1000), client(100, 3, 50), client(101, 4, 0))
	after := set(client(300, 1, 2000), client(400, 2, 1000), client(100, 3, 90), client(101, 4, 70),
		client(500, 5, 10), client(600, 6, 0))
	ours := func(pid int) bool { return pid == 100 || pid == 101 }
	var pids []int
	for _, c := range Active(before, after, ours) {
		pids = append(pids, c.PID)
	}
	slices.Sort(pids)
	if !slices.Equal(pids, []int{300, 500}) {
		t.Errorf("active pids %v; want [300 500] (grew, new with work)", pids)
	}
}

func TestDescendsAndComm(t *testing.T) {
	f := newFakeProc(t)
	f.process(100, 1, "appraise")
	f.process(101, 100, "mixbench-cuda")
	f.process(102, 101, "sh")
	f.process(200, 1, "python3")
	for pid, want := range map[int]bool{100: true, 101: true, 102: true, 200: false, 999: false, 1: false} {
		if got := Descends(f.root, pid, 100); got != want {
			t.Errorf("Descends(%d, 100) = %v; want %v", pid, got, want)
		}
	}
	if got := Comm(f.root, 200); got != "python3" {
		t.Errorf("Comm(200) = %q", got)
	}
	if got := Comm(f.root, 999); got != "" {
		t.Errorf("Comm of a missing process = %q", got)
	}
}

func TestBusyPercent(t *testing.T) {
	f := newFakeProc(t)
	f.write("sys/bus/pci/devices/0000:03:00.0/gpu_busy_percent", "87\n")
	if pct, err := BusyPercent(f.root, "0000:03:00.0"); err != nil || pct != 87 {
		t.Errorf("BusyPercent = %v, %v; want 87", pct, err)
	}
	if _, err := BusyPercent(f.root, "0000:04:00.0"); err == nil {
		t.Error("a device without the file read")
	}
}

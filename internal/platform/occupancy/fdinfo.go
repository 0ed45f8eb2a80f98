package occupancy

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/everycycle/appraise/internal/platform/pci"
)

// Client is one DRM client, an open file of a DRM device, as its
// /proc/<pid>/fdinfo/<fd> statistics describe it (drm-usage-stats).
type Client struct {
	PID         int    // the lowest pid holding the client's file
	ID          uint64 // drm-client-id, one per open file description
	PDev        string // drm-pdev, sysfs form
	Activity    uint64 // sum of drm-engine-* (ns) and drm-cycles-*; only its growth matters
	Engines     bool   // the driver reports an engine counter
	MemoryBytes uint64 // vram or local regions held; meaningful only when MemoryKnown
	MemoryKnown bool
}

// ClientKey names a client: client ids are unique per device.
type ClientKey struct {
	PDev string
	ID   uint64
}

// Clients are the DRM clients seen at one moment.
type Clients map[ClientKey]Client

// ParseFdinfo reads one fdinfo file. ok is false when it is not a DRM
// client's with a PCI device (no drm-client-id or no drm-pdev).
func ParseFdinfo(data []byte) (c Client, ok bool) {
	var haveID bool
	var resident, legacy memory
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		key, val, found := strings.Cut(sc.Text(), ":")
		if !found || !strings.HasPrefix(key, "drm-") {
			continue
		}
		val = strings.TrimSpace(val)
		switch {
		case key == "drm-client-id":
			id, err := strconv.ParseUint(val, 10, 64)
			c.ID, haveID = id, err == nil
		case key == "drm-pdev":
			if b, err := pci.ParseBDF(val); err == nil {
				c.PDev = b.String()
			}
		case strings.HasPrefix(key, "drm-engine-capacity-"):
		case strings.HasPrefix(key, "drm-engine-"), strings.HasPrefix(key, "drm-cycles-"):
			if n, ok := leadingUint(val); ok {
				c.Activity += n
				c.Engines = true
			}
		case strings.HasPrefix(key, "drm-resident-"):
			resident.add(strings.TrimPrefix(key, "drm-resident-"), val)
		case strings.HasPrefix(key, "drm-memory-"):
			legacy.add(strings.TrimPrefix(key, "drm-memory-"), val)
		}
	}
	for _, m := range []memory{resident, legacy} {
		if m.known {
			c.MemoryBytes, c.MemoryKnown = m.bytes, true
			break
		}
	}
	return c, haveID && c.PDev != ""
}

type memory struct {
	bytes uint64
	known bool
}

// add counts region's value ("<uint> [KiB|MiB|GiB]") if it is device
// memory: "vram…" (amdgpu, nouveau) or "local…" (Intel).
func (m *memory) add(region, val string) {
	if !strings.HasPrefix(region, "vram") && !strings.HasPrefix(region, "local") {
		return
	}
	num, unit, _ := strings.Cut(val, " ")
	n, err := strconv.ParseUint(num, 10, 64)
	if err != nil {
		return
	}
	shift := map[string]uint{"": 0, "B": 0, "KiB": 10, "MiB": 20, "GiB": 30}
	s, ok := shift[strings.TrimSpace(unit)]
	if !ok {
		return
	}
	m.bytes += n << s
	m.known = true
}

func leadingUint(val string) (uint64, bool) {
	num, _, _ := strings.Cut(val, " ")
	n, err := strconv.ParseUint(num, 10, 64)
	return n, err == nil
}

// ScanClients reads every DRM client of every process below root ("" is the
// running system), passing over processes it cannot read. It fails only when
// root/proc cannot be listed.
func ScanClients(root string) (Clients, error) {
	proc := filepath.Join(rootOr(root), "proc")
	entries, err := os.ReadDir(proc)
	if err != nil {
		return nil, err
	}
	out := Clients{}
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid <= 0 {
			continue
		}
		scanProcess(filepath.Join(proc, e.Name(), "fdinfo"), pid, out)
	}
	return out, nil
}

func scanProcess(dir string, pid int, out Clients) {
	fds, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, fd := range fds {
		data, err := os.ReadFile(filepath.Join(dir, fd.Name()))
		if err != nil {
			continue
		}
		c, ok := ParseFdinfo(data)
		if !ok {
			continue
		}
		c.PID = pid
		k := ClientKey{c.PDev, c.ID}
		if had, seen := out[k]; !seen || pid < had.PID {
			out[k] = c
		}
	}
}

// Of returns the clients of the device at pdev (sysfs form).
func (cs Clients) Of(pdev string) Clients {
	out := Clients{}
	for k, c := range cs {
		if k.PDev == pdev {
			out[k] = c
		}
	}
	return out
}

// Active returns the clients in after, not ours, whose engine counters grew
// since before, or are not zero for a client new since before.
func Active(before, after Clients, ours func(pid int) bool) []Client {
	var out []Client
	for k, c := range after {
		if ours(c.PID) {
			continue
		}
		prev, had := before[k]
		if had && c.Activity > prev.Activity || !had && c.Activity > 0 {
			out = append(out, c)
		}
	}
	return out
}

// Comm is the command name of process pid below root, "" when unreadable.
func Comm(root string, pid int) string {
	b, err := os.ReadFile(filepath.Join(rootOr(root), "proc", strconv.Itoa(pid), "comm"))
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}

const maxDepth = 64 // bounds Descends's walk up the process tree

// Descends reports whether pid is self or its descendant, by the PPid lines of
// root/proc/<pid>/status. A process that cannot be read is not.
func Descends(root string, pid, self int) bool {
	for range maxDepth {
		if pid == self {
			return true
		}
		if pid <= 1 {
			return false
		}
		next, ok := parentOf(root, pid)
		if !ok {
			return false
		}
		pid = next
	}
	return false
}

func parentOf(root string, pid int) (int, bool) {
	b, err := os.ReadFile(filepath.Join(rootOr(root), "proc", strconv.Itoa(pid), "status"))
	if err != nil {
		return 0, false
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "PPid:"); ok {
			n, err := strconv.Atoi(strings.TrimSpace(v))
			return n, err == nil
		}
	}
	return 0, false
}

func rootOr(root string) string {
	if root == "" {
		return "/"
	}
	return root
}

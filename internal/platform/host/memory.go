package host

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
)

// Memory is what this process may allocate: the smaller of MemAvailable (the
// node's, in a container) and what its memory cgroups leave below their limits.
type Memory struct {
	UsableBytes                       uint64 // min(MemAvailableBytes, CgroupFreeBytes())
	MemAvailableBytes                 uint64 // /proc/meminfo's MemAvailable
	Cgroup                            string // the binding cgroup, e.g. "v2:/slurm/job42"; "" when none
	CgroupLimitBytes, CgroupUsedBytes uint64 // its limit, and usage less the inactive file cache
}

// CgroupFreeBytes is what the binding cgroup leaves below its limit, 0
// without one.
func (m Memory) CgroupFreeBytes() uint64 {
	return cgroupLimit{limit: m.CgroupLimitBytes, used: m.CgroupUsedBytes}.free()
}

// String says what binds, for error messages and progress lines.
func (m Memory) String() string {
	if m.Cgroup == "" {
		return fmt.Sprintf("%d MiB available (MemAvailable)", m.UsableBytes>>20)
	}
	return fmt.Sprintf("%d MiB available (MemAvailable %d MiB; cgroup %s: limit %d MiB, in use %d MiB)",
		m.UsableBytes>>20, m.MemAvailableBytes>>20, m.Cgroup, m.CgroupLimitBytes>>20, m.CgroupUsedBytes>>20)
}

// ReadMemory reads MemAvailable and the process's memory cgroups below root
// ("" is the running system). An unreadable cgroup counts as no limit.
func ReadMemory(root string) (Memory, error) {
	root = rootOr(root)
	f, err := os.Open(filepath.Join(root, "proc/meminfo"))
	if err != nil {
		return Memory{}, fmt.Errorf("host: %w", err)
	}
	defer f.Close()
	avail, err := ParseMemAvailable(f)
	if err != nil {
		return Memory{}, err
	}
	m := Memory{UsableBytes: avail, MemAvailableBytes: avail}
	self, err := os.ReadFile(filepath.Join(root, "proc/self/cgroup"))
	if err != nil {
		return m, nil // no cgroup file: not in a cgroup we can see
	}
	for _, l := range cgroupLimits(root, string(self)) {
		if m.Cgroup == "" || l.free() < m.CgroupFreeBytes() {
			m.Cgroup, m.CgroupLimitBytes, m.CgroupUsedBytes = l.name, l.limit, l.used
		}
	}
	if m.Cgroup != "" {
		m.UsableBytes = min(m.UsableBytes, m.CgroupFreeBytes())
	}
	return m, nil
}

// ParseMemAvailable returns MemAvailable from /proc/meminfo text, in bytes.
func ParseMemAvailable(r io.Reader) (uint64, error) {
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		rest, ok := strings.CutPrefix(sc.Text(), "MemAvailable:")
		if !ok {
			continue
		}
		f := strings.Fields(rest)
		if len(f) != 2 || f[1] != "kB" {
			return 0, fmt.Errorf("host: meminfo: malformed MemAvailable line %q", sc.Text())
		}
		kb, err := strconv.ParseUint(f[0], 10, 64)
		if err != nil {
			return 0, fmt.Errorf("host: meminfo: MemAvailable: %w", err)
		}
		return kb * 1024, nil
	}
	if err := sc.Err(); err != nil {
		return 0, fmt.Errorf("host: meminfo: %w", err)
	}
	return 0, errors.New("host: meminfo: no MemAvailable line")
}

type cgroupLimit struct {
	name        string
	limit, used uint64
}

func (l cgroupLimit) free() uint64 {
	if l.limit <= l.used {
		return 0
	}
	return l.limit - l.used
}

// cgroupLimits returns every cgroup from the process's own up to the root
// that sets a memory limit, v2 and v1, as self (/proc/self/cgroup) names them.
func cgroupLimits(root, self string) []cgroupLimit {
	var out []cgroupLimit
	for _, line := range strings.Split(self, "\n") {
		f := strings.SplitN(line, ":", 3)
		if len(f) != 3 {
			continue
		}
		switch {
		case f[0] == "0" && f[1] == "":
			out = append(out, walkCgroup(root, "v2", f[2], []string{"sys/fs/cgroup", "sys/fs/cgroup/unified"}, cgroupV2)...)
		case hasController(f[1], "memory"):
			out = append(out, walkCgroup(root, "v1", f[2], []string{"sys/fs/cgroup/memory"}, cgroupV1)...)
		}
	}
	return out
}

func hasController(list, name string) bool {
	for _, c := range strings.Split(list, ",") {
		if c == name {
			return true
		}
	}
	return false
}

// walkCgroup reads the cgroup at p and its ancestors under the first mount
// holding the limit file. A path not found under the mount (a container's own
// cgroup mount) falls back to the mount's top.
func walkCgroup(root, version, p string, mounts []string, files cgroupFiles) []cgroupLimit {
	var out []cgroupLimit
	for _, mnt := range mounts {
		base := filepath.Join(root, mnt)
		start := path.Clean("/" + p)
		if _, err := os.Stat(filepath.Join(base, start)); err != nil {
			start = "/"
		}
		found := false
		for dir := start; ; dir = path.Dir(dir) {
			limit, lerr := readCgroupValue(filepath.Join(base, dir, files.limit))
			used, uerr := readCgroupValue(filepath.Join(base, dir, files.usage))
			if lerr == nil {
				found = true
			}
			if lerr == nil && uerr == nil && limit > 0 && limit < noLimit {
				used -= min(used, statValue(filepath.Join(base, dir, "memory.stat"), files.inactive))
				out = append(out, cgroupLimit{name: version + ":" + dir, limit: limit, used: used})
			}
			if dir == "/" {
				break
			}
		}
		if found {
			break
		}
	}
	return out
}

// cgroupFiles names a version's limit and usage files and memory.stat's key
// for the inactive file cache (v1: the hierarchical total_ key).
type cgroupFiles struct{ limit, usage, inactive string }

var (
	cgroupV2 = cgroupFiles{"memory.max", "memory.current", "inactive_file"}
	cgroupV1 = cgroupFiles{"memory.limit_in_bytes", "memory.usage_in_bytes", "total_inactive_file"}
)

const noLimit = 1 << 62 // v1 writes "no limit" as 2^63 less a page

// readCgroupValue reads a cgroup file holding one number, or "max" (0).
func readCgroupValue(file string) (uint64, error) {
	b, err := os.ReadFile(file)
	if err != nil {
		return 0, err
	}
	s := strings.TrimSpace(string(b))
	if s == "max" {
		return 0, nil
	}
	return strconv.ParseUint(s, 10, 64)
}

// statValue is key's value in a memory.stat file, 0 when unreadable or absent.
func statValue(stat, key string) uint64 {
	b, err := os.ReadFile(stat)
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		if len(f) == 2 && f[0] == key {
			n, _ := strconv.ParseUint(f[1], 10, 64)
			return n
		}
	}
	return 0
}

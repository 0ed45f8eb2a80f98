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

// Memory the process may use: the smaller of the kernel's MemAvailable
// and what the process's memory cgroup leaves below its limit. In a
// container or a batch job MemAvailable is the node's, so sizing from it
// alone would overrun the cgroup's limit and end in the OOM killer.

// Memory is what this process may allocate, and where the figure came
// from.
type Memory struct {
	// UsableBytes is the smaller of MemAvailableBytes and CgroupFreeBytes
	// (when the cgroup has a limit).
	UsableBytes uint64
	// MemAvailableBytes is /proc/meminfo's MemAvailable.
	MemAvailableBytes uint64
	// Cgroup is the memory cgroup whose limit binds ("" when no ancestor
	// of the process's cgroup sets one), e.g. "v2:/slurm/job42".
	Cgroup string
	// CgroupLimitBytes and CgroupUsedBytes are that cgroup's limit and its
	// working set (usage less its inactive file cache, which the kernel
	// reclaims before it kills).
	CgroupLimitBytes, CgroupUsedBytes uint64
}

// CgroupFreeBytes is what the binding cgroup leaves below its limit (0
// without one).
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

// ReadMemory reads MemAvailable and the process's memory cgroups below
// root ("" for the real system). A cgroup that cannot be read counts as
// no limit; meminfo must be readable.
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

// cgroupLimit is one cgroup that sets a memory limit.
type cgroupLimit struct {
	name        string
	limit, used uint64
}

// free is what the cgroup leaves below its limit.
func (l cgroupLimit) free() uint64 {
	if l.limit <= l.used {
		return 0
	}
	return l.limit - l.used
}

// cgroupLimits returns every cgroup from the process's own up to the
// hierarchy's root that sets a memory limit, for both cgroup v2 (the
// "0::" line) and v1 (the "memory" controller's line), as self (the
// contents of /proc/self/cgroup) names them.
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

// walkCgroup reads limit and usage files in the cgroup at p and each of
// its ancestors under the first mount that holds the limit file. Inside
// a container the process's path may be the host's while the mount is
// its own cgroup, so a path not found under a mount falls back to the
// mount's top.
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

// cgroupFiles names a cgroup version's files: the limit, the usage and
// memory.stat's key for the inactive file cache below the cgroup (v1's
// usage counts its children, so its hierarchical total_ key).
type cgroupFiles struct{ limit, usage, inactive string }

var (
	cgroupV2 = cgroupFiles{"memory.max", "memory.current", "inactive_file"}
	cgroupV1 = cgroupFiles{"memory.limit_in_bytes", "memory.usage_in_bytes", "total_inactive_file"}
)

// noLimit: v1 writes "no limit" as the largest page-aligned int64
// (9223372036854771712); anything from 2^62 on is taken as unlimited.
const noLimit = 1 << 62

// readCgroupValue reads a cgroup file holding one number or "max".
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

// statValue is the value of key in the memory.stat file stat, 0 when
// unreadable or absent.
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

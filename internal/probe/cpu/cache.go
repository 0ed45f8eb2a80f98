package cpu

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// cacheInfo is one cache as sysfs describes it.
type cacheInfo struct {
	level  int
	kind   string // "Data", "Instruction" or "Unified"
	bytes  uint64
	shared string // shared_cpu_list: the CPUs that share this cache
}

// lastLevelCache returns the total size of the highest-level data or unified
// caches below root, each counted once; 0 when sysfs describes none.
func lastLevelCache(root string) (uint64, error) {
	pattern := filepath.Join(root, "/sys/devices/system/cpu/cpu[0-9]*/cache/index[0-9]*")
	dirs, err := filepath.Glob(pattern)
	if err != nil {
		return 0, fmt.Errorf("cpubench: cache topology: %w", err)
	}
	seen := map[string]bool{}
	var top []cacheInfo
	for _, dir := range dirs {
		c, err := readCache(dir)
		if errors.Is(err, fs.ErrNotExist) {
			continue // an index without size or sharing (seen on VMs)
		}
		if err != nil {
			return 0, err
		}
		if c.kind == "Instruction" || seen[c.key()] {
			continue
		}
		seen[c.key()] = true
		top = append(top, c)
	}
	return sumTopLevel(top), nil
}

// key identifies one physical cache.
func (c cacheInfo) key() string { return fmt.Sprintf("%d/%s/%s", c.level, c.kind, c.shared) }

func sumTopLevel(caches []cacheInfo) uint64 {
	maxLevel := 0
	for _, c := range caches {
		maxLevel = max(maxLevel, c.level)
	}
	var total uint64
	for _, c := range caches {
		if c.level == maxLevel {
			total += c.bytes
		}
	}
	return total
}

func readCache(dir string) (cacheInfo, error) {
	var vals [4]string
	for i, name := range []string{"level", "type", "size", "shared_cpu_list"} {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			return cacheInfo{}, fmt.Errorf("cpubench: cache topology: %w", err)
		}
		vals[i] = strings.TrimSpace(string(b))
	}
	level, err := strconv.Atoi(vals[0])
	if err != nil {
		return cacheInfo{}, fmt.Errorf("cpubench: cache topology: %s: level: %w", dir, err)
	}
	size, err := parseCacheSize(vals[2])
	if err != nil {
		return cacheInfo{}, fmt.Errorf("cpubench: cache topology: %s: %w", dir, err)
	}
	return cacheInfo{level: level, kind: vals[1], bytes: size, shared: vals[3]}, nil
}

// parseCacheSize parses sysfs sizes such as "48K", "32M" or "1G".
func parseCacheSize(s string) (uint64, error) {
	mult := uint64(1)
	switch {
	case strings.HasSuffix(s, "K"):
		mult, s = 1<<10, strings.TrimSuffix(s, "K")
	case strings.HasSuffix(s, "M"):
		mult, s = 1<<20, strings.TrimSuffix(s, "M")
	case strings.HasSuffix(s, "G"):
		mult, s = 1<<30, strings.TrimSuffix(s, "G")
	}
	n, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("cache size %q: %w", s, err)
	}
	return n * mult, nil
}

// Package smaps reads the process's memory mappings, for tests that report
// how the kernel backed host memory.
package smaps

import (
	"bufio"
	"fmt"
	"os"
	"strings"
)

// AnonHugeKiB returns how many KiB of the mapping holding addr are backed
// by transparent huge pages; -1 when unreadable.
func AnonHugeKiB(addr uint64) int {
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

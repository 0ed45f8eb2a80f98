package pci

import (
	"bufio"
	"bytes"
	"fmt"
	"strconv"
	"strings"
)

// Resource flags in the third column of a sysfs "resource" file
// (include/linux/ioport.h).
const (
	FlagIO       uint64 = 0x00000100 // IORESOURCE_IO
	FlagMem      uint64 = 0x00000200 // IORESOURCE_MEM
	FlagPrefetch uint64 = 0x00002000 // IORESOURCE_PREFETCH
	FlagMem64    uint64 = 0x00100000 // IORESOURCE_MEM_64
)

const numBARs = 6 // lines 0-5 of a resource file; later lines are the ROM and bridge windows

// BAR is one assigned base address register of a device.
type BAR struct {
	Index     int    // 0-5; a 64-bit BAR takes its lower index and leaves the next empty
	Start     uint64 // first bus address
	End       uint64 // last bus address, inclusive
	Flags     uint64 // the kernel's resource flags (FlagMem, …)
	SizeBytes uint64 // End-Start+1
}

// IsMemory reports whether the BAR maps memory (rather than I/O ports).
func (b BAR) IsMemory() bool { return b.Flags&FlagMem != 0 }

// Prefetchable reports whether the BAR is prefetchable memory.
func (b BAR) Prefetchable() bool { return b.Flags&FlagPrefetch != 0 }

// Is64Bit reports whether the BAR is a 64-bit memory BAR.
func (b BAR) Is64Bit() bool { return b.Flags&FlagMem64 != 0 }

// parseResource returns the non-empty standard BARs of a resource file,
// checking the syntax of every line.
func parseResource(data []byte) ([]BAR, error) {
	var bars []BAR
	sc := bufio.NewScanner(bytes.NewReader(data))
	n := 0
	for ; sc.Scan(); n++ {
		f := strings.Fields(sc.Text())
		if len(f) != 3 {
			return nil, fmt.Errorf("line %d: want 3 fields, got %d", n+1, len(f))
		}
		var v [3]uint64
		for i, s := range f {
			x, err := parseHex(s, 64)
			if err != nil {
				return nil, fmt.Errorf("line %d: %w", n+1, err)
			}
			v[i] = x
		}
		start, end, flags := v[0], v[1], v[2]
		if end == 0 && start == 0 {
			continue // unused slot
		}
		if end < start {
			return nil, fmt.Errorf("line %d: end %#x before start %#x", n+1, end, start)
		}
		if n < numBARs {
			bars = append(bars, BAR{Index: n, Start: start, End: end, Flags: flags, SizeBytes: end - start + 1})
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if n == 0 {
		return nil, fmt.Errorf("empty")
	}
	return bars, nil
}

// parseHex parses a "0x"-prefixed hex number of at most bits bits, the form
// the kernel uses for ids, class codes and resources.
func parseHex(s string, bits int) (uint64, error) {
	digits, ok := strings.CutPrefix(s, "0x")
	if !ok || digits == "" || strings.ContainsAny(digits, "+-_") {
		return 0, fmt.Errorf("%q is not a 0x-prefixed hex number", s)
	}
	v, err := strconv.ParseUint(digits, 16, bits)
	if err != nil {
		return 0, fmt.Errorf("%q: %w", s, err)
	}
	return v, nil
}

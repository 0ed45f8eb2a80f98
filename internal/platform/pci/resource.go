package pci

import (
	"bufio"
	"bytes"
	"fmt"
	"strconv"
	"strings"
)

// Resource flag bits as the kernel writes them in the third column of a
// device's sysfs "resource" file (include/linux/ioport.h). The low byte
// holds bus-specific bits (for PCI, the BAR's own type bits).
const (
	// FlagIO marks an I/O port range (IORESOURCE_IO).
	FlagIO uint64 = 0x00000100
	// FlagMem marks a memory range (IORESOURCE_MEM).
	FlagMem uint64 = 0x00000200
	// FlagPrefetch marks prefetchable memory (IORESOURCE_PREFETCH).
	FlagPrefetch uint64 = 0x00002000
	// FlagMem64 marks a 64-bit memory BAR (IORESOURCE_MEM_64). Note that
	// 0x200 is IORESOURCE_MEM, not the 64-bit bit.
	FlagMem64 uint64 = 0x00100000
)

// numBARs is the number of standard BARs of a type-0 header. In the
// resource file, lines 0-5 are the BARs, line 6 the expansion ROM and any
// later lines SR-IOV or bridge windows.
const numBARs = 6

// BAR is one assigned base address register of a device.
type BAR struct {
	// Index is the BAR number, 0-5. A 64-bit BAR takes two registers; the
	// kernel reports it at the lower index and leaves the next one empty.
	Index int
	// Start is the first bus address of the range.
	Start uint64
	// End is the last bus address of the range (inclusive).
	End uint64
	// Flags are the kernel's resource flags (see FlagMem and friends).
	Flags uint64
	// SizeBytes is End-Start+1, in bytes.
	SizeBytes uint64
}

// IsMemory reports whether the BAR maps memory (rather than I/O ports).
func (b BAR) IsMemory() bool { return b.Flags&FlagMem != 0 }

// Prefetchable reports whether the BAR is prefetchable memory.
func (b BAR) Prefetchable() bool { return b.Flags&FlagPrefetch != 0 }

// Is64Bit reports whether the BAR is a 64-bit memory BAR.
func (b BAR) Is64Bit() bool { return b.Flags&FlagMem64 != 0 }

// parseResource parses the content of a sysfs "resource" file: one line per
// resource, each "0x<start> 0x<end> 0x<flags>". It returns the non-empty
// standard BARs (lines 0-5) and checks the syntax of every line.
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

package pci

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// ErrBadBDF is wrapped by every error ParseBDF returns.
var ErrBadBDF = errors.New("malformed PCI bus address")

// BDF is a PCI bus address: domain (segment), bus, device and function.
type BDF struct {
	Domain   uint32 // segment group; Intel VMD domains start at 0x10000
	Bus      uint8
	Device   uint8 // 0x00-0x1f
	Function uint8 // 0-7
}

// ParseBDF parses the sysfs form "dddd:bb:dd.f", whose domain has 4 to 8 hex
// digits (NVML writes 8), or the short form "bb:dd.f" of domain 0. Hex digits
// may be of either case; ParseBDF(b.String()) == b for every b.
func ParseBDF(s string) (BDF, error) {
	b, err := parseBDF(s)
	if err != nil {
		return BDF{}, fmt.Errorf("pci: %w", err)
	}
	return b, nil
}

// parseBDF is ParseBDF without the package prefix on its errors.
func parseBDF(s string) (BDF, error) {
	var b BDF
	rest := s
	if strings.Count(s, ":") == 2 {
		dom, tail, _ := strings.Cut(s, ":")
		if len(dom) < 4 || len(dom) > 8 {
			return BDF{}, fmt.Errorf("%q: domain must have 4 to 8 hex digits: %w", s, ErrBadBDF)
		}
		d, err := parseHexDigits(dom)
		if err != nil {
			return BDF{}, fmt.Errorf("%q: domain: %w", s, err)
		}
		b.Domain, rest = uint32(d), tail
	}
	busS, devFn, ok := strings.Cut(rest, ":")
	if !ok {
		return BDF{}, fmt.Errorf("%q: want [dddd:]bb:dd.f: %w", s, ErrBadBDF)
	}
	devS, fnS, ok := strings.Cut(devFn, ".")
	if !ok || len(busS) != 2 || len(devS) != 2 || len(fnS) != 1 {
		return BDF{}, fmt.Errorf("%q: want [dddd:]bb:dd.f: %w", s, ErrBadBDF)
	}
	bus, err := parseHexDigits(busS)
	if err != nil {
		return BDF{}, fmt.Errorf("%q: bus: %w", s, err)
	}
	dev, err := parseHexDigits(devS)
	if err != nil || dev > 0x1f {
		return BDF{}, fmt.Errorf("%q: device must be 00-1f: %w", s, ErrBadBDF)
	}
	if fnS[0] < '0' || fnS[0] > '7' {
		return BDF{}, fmt.Errorf("%q: function must be 0-7: %w", s, ErrBadBDF)
	}
	b.Bus, b.Device, b.Function = uint8(bus), uint8(dev), fnS[0]-'0'
	return b, nil
}

func parseHexDigits(s string) (uint64, error) {
	for _, c := range s {
		if !strings.ContainsRune("0123456789abcdefABCDEF", c) {
			return 0, fmt.Errorf("%q is not hex: %w", s, ErrBadBDF)
		}
	}
	v, err := strconv.ParseUint(s, 16, 32)
	if err != nil {
		return 0, fmt.Errorf("%q: %w", s, ErrBadBDF)
	}
	return v, nil
}

// String returns the address in the Linux sysfs form, e.g. "0000:01:00.0".
func (b BDF) String() string {
	return fmt.Sprintf("%04x:%02x:%02x.%d", b.Domain, b.Bus, b.Device, b.Function)
}

// Compare orders addresses by domain, bus, device, then function, which is
// CUDA's order under CUDA_DEVICE_ORDER=PCI_BUS_ID. It returns -1, 0 or +1.
func (b BDF) Compare(o BDF) int {
	return cmp.Or(
		cmp.Compare(b.Domain, o.Domain),
		cmp.Compare(b.Bus, o.Bus),
		cmp.Compare(b.Device, o.Device),
		cmp.Compare(b.Function, o.Function),
	)
}

// DeviceIndexByBusID returns the index of ours among visible, the addresses a
// CUDA-style tool enumerates (any form ParseBDF accepts), in bus order: the
// tool's index under CUDA_DEVICE_ORDER=PCI_BUS_ID with no CUDA_VISIBLE_DEVICES.
// An address missing, malformed or listed twice is an error, never a guess.
func DeviceIndexByBusID(ours string, visible []string) (int, error) {
	want, err := parseBDF(ours)
	if err != nil {
		return 0, fmt.Errorf("pci: device index: %w", err)
	}
	addrs := make([]BDF, 0, len(visible))
	for _, v := range visible {
		b, err := parseBDF(v)
		if err != nil {
			return 0, fmt.Errorf("pci: device index: visible device: %w", err)
		}
		addrs = append(addrs, b)
	}
	slices.SortFunc(addrs, BDF.Compare)
	for i := 1; i < len(addrs); i++ {
		if addrs[i] == addrs[i-1] {
			return 0, fmt.Errorf("pci: device index: %s listed twice", addrs[i])
		}
	}
	i, found := slices.BinarySearchFunc(addrs, want, BDF.Compare)
	if !found {
		return 0, fmt.Errorf("pci: device index: %s is not among the %d visible devices", want, len(addrs))
	}
	return i, nil
}

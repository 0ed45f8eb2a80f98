package nvml

import (
	"errors"
	"testing"

	"github.com/everycycle/appraise/internal/platform/pci"
)

func TestBusIDConversion(t *testing.T) {
	cases := []struct{ ours, nvml string }{
		{"0000:00:06.0", "00000000:00:06.0"}, // the H200 host
		{"0000:00:07.0", "00000000:00:07.0"}, // its two-GPU sibling
		{"0000:01:00.0", "00000000:01:00.0"}, // the seed's RTX 5070 Ti
		{"0003:02:00.0", "00000003:02:00.0"},
		{"0000:1a:1f.7", "00000000:1A:1F.7"},
		{"10000:e1:00.0", "00010000:E1:00.0"}, // VMD domain, 5 digits in sysfs
	}
	for _, c := range cases {
		if got, err := ToNVMLBusID(c.ours); err != nil || got != c.nvml {
			t.Errorf("ToNVMLBusID(%q) = %q, %v; want %q", c.ours, got, err, c.nvml)
		}
		if got, err := FromNVMLBusID(c.nvml); err != nil || got != c.ours {
			t.Errorf("FromNVMLBusID(%q) = %q, %v; want %q", c.nvml, got, err, c.ours)
		}
		// Each direction is idempotent: a bus id already in the target
		// form comes back unchanged.
		if got, err := ToNVMLBusID(c.nvml); err != nil || got != c.nvml {
			t.Errorf("ToNVMLBusID(%q) = %q, %v; want it unchanged", c.nvml, got, err)
		}
		if got, err := FromNVMLBusID(c.ours); err != nil || got != c.ours {
			t.Errorf("FromNVMLBusID(%q) = %q, %v; want it unchanged", c.ours, got, err)
		}
	}
}

func TestBusIDConversionLenient(t *testing.T) {
	cases := []struct{ in, nvml, ours string }{
		{"0000:1A:00.0", "00000000:1A:00.0", "0000:1a:00.0"}, // upper case in
		{"01:00.0", "00000000:01:00.0", "0000:01:00.0"},      // no domain means 0000
		{"0000:01:00.0", "00000000:01:00.0", "0000:01:00.0"}, // NVML's legacy 16-char id
	}
	for _, c := range cases {
		if got, err := ToNVMLBusID(c.in); err != nil || got != c.nvml {
			t.Errorf("ToNVMLBusID(%q) = %q, %v; want %q", c.in, got, err, c.nvml)
		}
		if got, err := FromNVMLBusID(c.in); err != nil || got != c.ours {
			t.Errorf("FromNVMLBusID(%q) = %q, %v; want %q", c.in, got, err, c.ours)
		}
	}
}

func TestBusIDConversionRejects(t *testing.T) {
	bad := []string{
		"",
		"0000:00:06",         // no function
		"0000:00:06.0 ",      // trailing space
		" 0000:00:06.0",      // leading space
		"000:00:06.0",        // 3-digit domain
		"000000000:00:06.0",  // 9-digit domain
		"0000:0:06.0",        // 1-digit bus
		"0000:000:06.0",      // 3-digit bus
		"0000:00:20.0",       // device above 1f
		"0000:00:06.8",       // function above 7
		"0000:00:06.00",      // 2-digit function
		"zzzz:00:06.0",       // not hex
		"0x00:00:06.0",       // prefix
		"+000:00:06.0",       // sign
		"0000:00:06.0\x00",   // C string terminator kept
		"GPU-5c4f0bd2-0000",  // a UUID, not a bus id
		"0000:00:00:06.0",    // too many parts
		"00000000-00-06.0",   // wrong separators
		"0000:00:06.0.0",     // too many dots
		"0000:00:06:0",       // colon for dot
		"00000000:00:06.0/x", // junk
	}
	for _, s := range bad {
		if got, err := ToNVMLBusID(s); !errors.Is(err, pci.ErrBadBDF) {
			t.Errorf("ToNVMLBusID(%q) = %q, %v; want an error wrapping ErrBadBDF", s, got, err)
		}
		if got, err := FromNVMLBusID(s); !errors.Is(err, pci.ErrBadBDF) {
			t.Errorf("FromNVMLBusID(%q) = %q, %v; want an error wrapping ErrBadBDF", s, got, err)
		}
	}
}

func TestCString(t *testing.T) {
	var buf [32]int8
	for i, c := range "00000000:00:06.0" {
		buf[i] = int8(c)
	}
	if got := cString(buf[:]); got != "00000000:00:06.0" {
		t.Errorf("cString = %q", got)
	}
	full := [3]int8{'a', 'b', 'c'} // no terminator: take all of it
	if got := cString(full[:]); got != "abc" {
		t.Errorf("cString(unterminated) = %q", got)
	}
}

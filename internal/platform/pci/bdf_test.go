package pci

import (
	"errors"
	"strings"
	"testing"
)

func TestParseBDF(t *testing.T) {
	tests := []struct {
		in   string
		want BDF
		str  string // String() of the result
	}{
		{"0000:01:00.0", BDF{0, 1, 0, 0}, "0000:01:00.0"},
		{"0003:02:00.0", BDF{3, 2, 0, 0}, "0003:02:00.0"},
		{"0000:00:06.0", BDF{0, 0, 6, 0}, "0000:00:06.0"},
		{"0000:00:1f.3", BDF{0, 0, 0x1f, 3}, "0000:00:1f.3"},
		{"ffff:ff:1f.7", BDF{0xffff, 0xff, 0x1f, 7}, "ffff:ff:1f.7"},
		{"01:00.0", BDF{0, 1, 0, 0}, "0000:01:00.0"},
		{"C1:00.1", BDF{0, 0xc1, 0, 1}, "0000:c1:00.1"},
		{"00000000:00:06.0", BDF{0, 0, 6, 0}, "0000:00:06.0"},           // NVML's form
		{"10000:e0:17.0", BDF{0x10000, 0xe0, 0x17, 0}, "10000:e0:17.0"}, // Intel VMD domain
	}
	for _, tt := range tests {
		got, err := ParseBDF(tt.in)
		if err != nil {
			t.Errorf("ParseBDF(%q): %v", tt.in, err)
			continue
		}
		if got != tt.want || got.String() != tt.str {
			t.Errorf("ParseBDF(%q) = %+v (%s), want %+v (%s)", tt.in, got, got, tt.want, tt.str)
		}
		again, err := ParseBDF(got.String())
		if err != nil || again != got {
			t.Errorf("round trip of %s: %+v, %v", got, again, err)
		}
	}
}

func TestParseBDFRejects(t *testing.T) {
	bad := []string{
		"", "0", "01:00", "0000:01:00", "000:01:00.0", "000000000:01:00.0", "0000:1:00.0",
		"0000:001:00.0", "0000:01:0.0", "0000:01:20.0", "0000:01:1f.8", "0000:01:00.9",
		"0000:01:00.00", "0000:01:00.a", "0000:01:00.", "g000:01:00.0", "0000:0g:00.0",
		"0000:01:0g.0", "+000:01:00.0", "0000:-1:00.0", "0x00:01:00.0", "0000:01:00:0",
		"0000:01:00.0\n", " 0000:01:00.0", "0000:01:00.0:1", "0000.01.00.0",
	}
	for _, s := range bad {
		if b, err := ParseBDF(s); err == nil {
			t.Errorf("ParseBDF(%q) = %s, want an error", s, b)
		} else if !errors.Is(err, ErrBadBDF) {
			t.Errorf("ParseBDF(%q) error %v does not wrap ErrBadBDF", s, err)
		}
	}
}

func TestBDFCompare(t *testing.T) {
	ordered := []string{"0000:00:06.0", "0000:00:07.0", "0000:01:00.0", "0000:01:00.1", "0000:01:01.0", "0003:00:00.0", "10000:00:00.0"}
	for i := range ordered {
		for j := range ordered {
			a, _ := ParseBDF(ordered[i])
			b, _ := ParseBDF(ordered[j])
			want := 0
			if i < j {
				want = -1
			} else if i > j {
				want = 1
			}
			if got := a.Compare(b); got != want {
				t.Errorf("%s.Compare(%s) = %d, want %d", a, b, got, want)
			}
		}
	}
}

func TestDeviceIndexByBusID(t *testing.T) {
	twoH200 := []string{"0000:00:07.0", "00000000:00:06.0"}
	tests := []struct {
		ours    string
		visible []string
		want    int
		errMsg  string
	}{
		{"0000:00:06.0", twoH200, 0, ""},
		{"0000:00:07.0", twoH200, 1, ""},
		{"00:07.0", twoH200, 1, ""},
		{"0000:01:00.0", []string{"0000:01:00.0"}, 0, ""},
		{"0000:81:00.0", []string{"0000:c1:00.0", "0000:81:00.0", "0000:01:00.0", "0000:41:00.0"}, 2, ""},
		{"0000:00:08.0", twoH200, 0, "not among the 2 visible devices"},
		{"0000:00:06.0", nil, 0, "not among the 0 visible devices"},
		{"0000:00:06.0", []string{"0000:00:06.0", "00:06.0"}, 0, "listed twice"},
		{"0000:00:06", twoH200, 0, "malformed"},
		{"0000:00:06.0", []string{"GPU-c2f5c8ee"}, 0, "visible device"},
	}
	for _, tt := range tests {
		got, err := DeviceIndexByBusID(tt.ours, tt.visible)
		if tt.errMsg != "" {
			if err == nil || !strings.Contains(err.Error(), tt.errMsg) {
				t.Errorf("DeviceIndexByBusID(%q, %q) = %d, %v; want error containing %q", tt.ours, tt.visible, got, err, tt.errMsg)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("DeviceIndexByBusID(%q, %q) = %d, %v; want %d", tt.ours, tt.visible, got, err, tt.want)
		}
	}
}

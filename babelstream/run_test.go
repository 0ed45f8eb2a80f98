package babelstream

import (
	"reflect"
	"strings"
	"testing"
)

func TestDeviceArgs(t *testing.T) {
	if got := strings.Join(DeviceArgs(1), " "); got != "--device 1" {
		t.Errorf("DeviceArgs(1) = %q", got)
	}
}

func TestParseList(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"\nDevices:\n0: NVIDIA H200\n1: NVIDIA H200\n\n", []string{"NVIDIA H200", "NVIDIA H200"}},
		{"Devices:\n0: NVIDIA GeForce RTX 5070 Ti\n", []string{"NVIDIA GeForce RTX 5070 Ti"}},
		{"", nil},
		{"\n\n", nil},
		{"\nDevices:\n\n", nil},
		{"\nDevices:\n1: NVIDIA H200\n\n", nil},
		{"\nDevices:\n0: A\n0: B\n\n", nil},
		{"\nDevices:\n0: A", nil},
		{"No devices found.\n", nil},
	}
	for _, tt := range tests {
		got, err := ParseList(strings.NewReader(tt.in))
		if tt.want == nil {
			if err == nil {
				t.Errorf("ParseList(%q) = %q, want an error", tt.in, got)
			}
			continue
		}
		if err != nil || !reflect.DeepEqual(got, tt.want) {
			t.Errorf("ParseList(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}
}

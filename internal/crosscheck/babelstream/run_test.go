package babelstream

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

// fakeTool writes an executable shell script with body into a temporary
// directory and returns its path.
func fakeTool(t *testing.T, body string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "cuda-stream")
	if err := os.WriteFile(path, []byte("#!/bin/sh\n"+body+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestRunPrintsSample(t *testing.T) {
	sample, err := filepath.Abs(sampleDouble)
	if err != nil {
		t.Fatal(err)
	}
	tool := fakeTool(t, "cat '"+sample+"'")
	out, err := Run(context.Background(), tool, []string{"-s", "268435456"}, 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(out, readSample(t, sampleDouble)) {
		t.Error("Run did not return the tool's stdout unchanged")
	}
	res, err := Parse(bytes.NewReader(out))
	if err != nil {
		t.Fatal(err)
	}
	if k, _ := res.Kernel("Copy"); k.Bandwidth != 3956318.317 {
		t.Errorf("Copy = %v", k.Bandwidth)
	}
}

func TestRunEnvironmentAndArgs(t *testing.T) {
	t.Setenv("CUDA_VISIBLE_DEVICES", "1")
	t.Setenv("CUDA_DEVICE_ORDER", "FASTEST_FIRST")
	tool := fakeTool(t, `echo "$CUDA_DEVICE_ORDER|${CUDA_VISIBLE_DEVICES-unset}|$*"; echo progress >&2`)
	out, err := Run(context.Background(), tool, append(DeviceArgs(1), "--csv"), 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := string(out), "PCI_BUS_ID|unset|--device 1 --csv\n"; got != want {
		t.Errorf("tool saw %q, want %q (stderr must not be mixed in)", got, want)
	}
}

func TestRunFailures(t *testing.T) {
	tests := []struct {
		name    string
		body    string
		timeout time.Duration
		msg     string
		is      error
	}{
		{"exit status", `echo partial; echo "FAILED validation of a[0]" >&2; exit 1`, 10 * time.Second, "FAILED validation of a[0]", nil},
		{"timeout", `exec sleep 30`, 200 * time.Millisecond, "timed out after 200ms", context.DeadlineExceeded},
		{"zero timeout", `true`, 0, "not positive", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			start := time.Now()
			out, err := Run(context.Background(), fakeTool(t, tt.body), nil, tt.timeout)
			if err == nil || out != nil || !strings.Contains(err.Error(), tt.msg) {
				t.Errorf("Run = %q, %v; want no output and an error containing %q", out, err, tt.msg)
			}
			if tt.is != nil && !errors.Is(err, tt.is) {
				t.Errorf("error %v does not wrap %v", err, tt.is)
			}
			if time.Since(start) > 10*time.Second {
				t.Errorf("Run took %s", time.Since(start))
			}
		})
	}
}

func TestRunMissingBinary(t *testing.T) {
	if _, err := Run(context.Background(), filepath.Join(t.TempDir(), "absent"), nil, time.Second); err == nil {
		t.Error("Run of a missing binary succeeded")
	}
}

func TestRunCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Run(ctx, fakeTool(t, "true"), nil, time.Second); !errors.Is(err, context.Canceled) {
		t.Errorf("Run with a cancelled context: %v", err)
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

package mixbench

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// fakeTool writes an executable shell script with body into a temporary
// directory and returns its path.
func fakeTool(t *testing.T, body string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "mixbench-cuda")
	if err := os.WriteFile(path, []byte("#!/bin/sh\n"+body+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestRunPrintsSample(t *testing.T) {
	abs, err := filepath.Abs(sample)
	if err != nil {
		t.Fatal(err)
	}
	out, err := RunDevice(context.Background(), fakeTool(t, "cat '"+abs+"'"), 0, 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(out, readSample(t)) {
		t.Error("RunDevice did not return the tool's stdout unchanged")
	}
	res, err := Parse(bytes.NewReader(out))
	if err != nil {
		t.Fatal(err)
	}
	if res.PeakOps(Single) != 59964.62e9 {
		t.Errorf("PeakOps(Single) = %v", res.PeakOps(Single))
	}
}

func TestRunEnvironment(t *testing.T) {
	t.Setenv("CUDA_VISIBLE_DEVICES", "3")
	t.Setenv("CUDA_DEVICE_ORDER", "FASTEST_FIRST")
	body := `echo "$CUDA_DEVICE_ORDER|${CUDA_VISIBLE_DEVICES-unset}|$*"; echo progress >&2`
	tests := []struct {
		name string
		run  func(tool string) ([]byte, error)
		want string
	}{
		{"RunDevice", func(tool string) ([]byte, error) {
			return RunDevice(context.Background(), tool, 1, 10*time.Second)
		}, "PCI_BUS_ID|1|\n"},
	}
	for _, tt := range tests {
		out, err := tt.run(fakeTool(t, body))
		if err != nil || string(out) != tt.want {
			t.Errorf("%s: tool saw %q, %v; want %q", tt.name, out, err, tt.want)
		}
	}
	if _, err := RunDevice(context.Background(), fakeTool(t, body), -1, time.Second); err == nil {
		t.Error("RunDevice accepted a negative index")
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
		{"exit status", `echo partial; echo "Cuda error in file 'x' in line 1 : out of memory." >&2; exit 1`, 10 * time.Second, "out of memory", nil},
		{"timeout", `exec sleep 30`, 200 * time.Millisecond, "timed out after 200ms", context.DeadlineExceeded},
		{"zero timeout", `true`, 0, "not positive", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			start := time.Now()
			out, err := RunDevice(context.Background(), fakeTool(t, tt.body), 0, tt.timeout)
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

package toolrun

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestCUDAEnv(t *testing.T) {
	got := CUDAEnv([]string{"PATH=/bin", "CUDA_VISIBLE_DEVICES=1", "CUDA_DEVICE_ORDER=FASTEST_FIRST"})
	want := []string{"PATH=/bin", "CUDA_DEVICE_ORDER=PCI_BUS_ID"}
	if !slices.Equal(got, want) {
		t.Fatalf("got %v, want %v", got, want)
	}
}

func script(t *testing.T, body string) string {
	p := filepath.Join(t.TempDir(), "tool")
	if err := os.WriteFile(p, []byte("#!/bin/sh\n"+body+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestRun(t *testing.T) {
	ctx := context.Background()
	out, err := Run(ctx, "tool", script(t, `echo "$CUDA_DEVICE_ORDER $1"`), []string{"x"}, CUDAEnv(nil), time.Minute)
	if err != nil || string(out) != "PCI_BUS_ID x\n" {
		t.Fatalf("Run = %q, %v", out, err)
	}
	_, err = Run(ctx, "tool", script(t, "echo broken >&2; exit 1"), nil, nil, time.Minute)
	if err == nil || !strings.Contains(err.Error(), "stderr: broken") {
		t.Fatalf("failing tool: %v", err)
	}
	_, err = Run(ctx, "tool", script(t, "sleep 5"), nil, nil, 100*time.Millisecond)
	if err == nil || !strings.Contains(err.Error(), "timed out") {
		t.Fatalf("slow tool: %v", err)
	}
	if _, err := Run(ctx, "tool", "true", nil, nil, 0); err == nil {
		t.Fatal("zero timeout accepted")
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
			out, err := Run(context.Background(), "babelstream", script(t, tt.body), nil, nil, tt.timeout)
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
	if _, err := Run(context.Background(), "tool", filepath.Join(t.TempDir(), "absent"), nil, nil, time.Second); err == nil {
		t.Error("Run of a missing binary succeeded")
	}
}

func TestRunCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Run(ctx, "tool", script(t, "true"), nil, nil, time.Second); !errors.Is(err, context.Canceled) {
		t.Errorf("Run with a cancelled context: %v", err)
	}
}

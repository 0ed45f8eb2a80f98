package toolrun

import (
	"context"
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

package wgsl

import (
	"errors"
	"strings"
	"testing"
)

func TestEveryFileIsAComputeKernel(t *testing.T) {
	names := Names()
	if len(names) == 0 {
		t.Fatal("no kernels embedded")
	}
	for _, n := range names {
		src, err := Source(n)
		if err != nil {
			t.Fatalf("Source(%q): %v", n, err)
		}
		if strings.TrimSpace(src) == "" {
			t.Errorf("%s.wgsl is empty", n)
		}
		if !strings.Contains(src, "@compute") {
			t.Errorf("%s.wgsl has no @compute entry point", n)
		}
	}
}

func TestUnknownKernel(t *testing.T) {
	if _, err := Source("no-such-kernel"); !errors.Is(err, ErrUnknownKernel) {
		t.Fatalf("Source of an unknown name: got %v, want ErrUnknownKernel", err)
	}
	if _, err := Source("../wgsl"); !errors.Is(err, ErrUnknownKernel) {
		t.Fatalf("Source of a path: got %v, want ErrUnknownKernel", err)
	}
}

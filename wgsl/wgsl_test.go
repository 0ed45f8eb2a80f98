package wgsl

import (
	"errors"
	"io/fs"
	"slices"
	"sort"
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

func TestBindings(t *testing.T) {
	src, err := Source("bandwidth")
	if err != nil {
		t.Fatal(err)
	}
	got := Bindings(src)
	want := []Binding{{0, SpaceUniform}, {1, SpaceStorageRead}, {2, SpaceStorageRead}, {3, SpaceStorageReadWrite}}
	if !slices.Equal(got, want) {
		t.Errorf("bandwidth bindings = %v, want %v", got, want)
	}
	// Every file declares at least one binding, and every declaration
	// line is understood.
	for _, n := range Names() {
		src, _ := Source(n)
		if len(Bindings(src)) != strings.Count(src, "@binding(") {
			t.Errorf("%s: %d bindings parsed of %d declared", n, len(Bindings(src)), strings.Count(src, "@binding("))
		}
	}
	if b := Bindings("@group(0) @binding(7) var<storage> x: array<u32>;"); len(b) != 1 || b[0] != (Binding{7, SpaceStorageRead}) {
		t.Errorf("bare storage: %v", b)
	}
}

// Names lists the embedded kernel files without their extension, sorted.
func Names() []string {
	entries, err := fs.ReadDir(files, ".")
	if err != nil {
		return nil
	}
	var names []string
	for _, e := range entries {
		if n, ok := strings.CutSuffix(e.Name(), ext); ok {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	return names
}

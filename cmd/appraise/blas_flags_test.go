package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A --cublaslt that names no regular file is a usage error (exit 2),
// refused before any key is unlocked or device probed; an existing file
// passes the check (whether it loads is the probe's business: the card
// then says why it could not).
func TestCuBLASLtFlag(t *testing.T) {
	dir := t.TempDir()
	lib := filepath.Join(dir, "libcublasLt.so.13")
	if err := os.WriteFile(lib, []byte("not a library"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		path, want string
	}{
		{filepath.Join(dir, "missing.so"), "no such file"},
		{dir, "not a regular file"},
	} {
		var stdout, stderr bytes.Buffer
		e := &env{ctx: context.Background(), stdout: &stdout, stderr: &stderr,
			getenv: func(string) string { return "" }}
		out := filepath.Join(dir, "out")
		code := run(context.Background(), []string{"--cublaslt", c.path, "--blas", "--out", out}, e)
		if code != exitUsage || !strings.Contains(stderr.String(), "--cublaslt "+c.path) || !strings.Contains(stderr.String(), c.want) ||
			!strings.Contains(stderr.String(), "hint:") {
			t.Errorf("--cublaslt %s: exit %d, stderr %q; want exit %d naming %q", c.path, code, stderr.String(), exitUsage, c.want)
		}
		if _, err := os.Stat(out); err == nil {
			t.Errorf("--cublaslt %s: %s was created", c.path, out)
		}
	}
	if err := (&appraiseCmd{CuBLASLt: lib}).checkBLAS(); err != nil {
		t.Errorf("an existing file was refused: %v", err)
	}
}

package export

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

func errorsIs(err, target error) bool { return errors.Is(err, target) }

func TestWriteFileReplacesAtomicallyAndLeavesNoTemp(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "appraise")
	for _, data := range []string{"first\n", "second\n"} {
		if err := WriteFile(path, []byte(data)); err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(path)
		if err != nil || string(got) != data {
			t.Fatalf("read %q, %v; want %q", got, err, data)
		}
	}
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode().Perm() != 0o644 {
		t.Errorf("mode %v, want 0644", st.Mode().Perm())
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 1 {
		t.Errorf("directory holds %d entries, want only the file", len(entries))
	}
}

func TestWriteFileFailureLeavesOldFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "appraise.prom")
	if err := WriteFile(path, []byte("old\n")); err != nil {
		t.Fatal(err)
	}
	// A directory where the file should go: the rename fails.
	if err := WriteFile(dir, []byte("x")); err == nil {
		t.Fatal("writing over a directory: want an error")
	}
	if err := WriteFile(filepath.Join(dir, "missing", "f"), []byte("x")); err == nil {
		t.Fatal("a missing directory: want an error")
	}
	got, _ := os.ReadFile(path)
	if string(got) != "old\n" {
		t.Fatalf("old file now %q", got)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("directory holds %d entries after failures, want 1 (no temporary file left)", len(entries))
	}
}

package appraisal

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

func TestWriteAllWritesEveryFile(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	files := []File{{"box-1.appraisal.json", []byte("box")}, {"card-a.appraisal.json", []byte("card")}}
	if err := WriteAll(dir, files, false); err != nil {
		t.Fatal(err)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 2 {
		t.Fatalf("want 2 files and no temporaries, got %v", entries)
	}
	for _, f := range files {
		b, err := os.ReadFile(filepath.Join(dir, f.Name))
		if err != nil || string(b) != string(f.Data) {
			t.Fatalf("%s: %q %v", f.Name, b, err)
		}
	}
	if err := WriteAll(dir, files, false); !errors.Is(err, ErrExists) {
		t.Fatalf("second write: %v, want ErrExists", err)
	}
	if err := WriteAll(dir, files, true); err != nil {
		t.Fatalf("overwrite: %v", err)
	}
}

// TestWriteAllLeavesNothingOnFailure makes the second rename fail (its
// target is a non-empty directory) and checks that nothing is left.
func TestWriteAllLeavesNothingOnFailure(t *testing.T) {
	dir := t.TempDir()
	blocker := filepath.Join(dir, "card-b.appraisal.json")
	if err := os.MkdirAll(filepath.Join(blocker, "x"), 0o755); err != nil {
		t.Fatal(err)
	}
	files := []File{{"box-1.appraisal.json", []byte("box")}, {"card-b.appraisal.json", []byte("card")}}
	if err := WriteAll(dir, files, true); err == nil {
		t.Fatal("rename onto a directory succeeded")
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 || entries[0].Name() != "card-b.appraisal.json" {
		t.Fatalf("left behind: %v", entries)
	}
}

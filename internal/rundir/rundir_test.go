package rundir

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

func names(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		out = append(out, e.Name())
	}
	return out
}

func run(data ...string) []File {
	var fs []File
	for i, d := range data {
		name := "card-" + string(rune('a'+i)) + ".appraisal.json"
		if i == 0 {
			name = "box-1.appraisal.json"
		}
		fs = append(fs, File{name, []byte(d)})
	}
	return fs
}

func TestWriteCreatesTheRunDirectory(t *testing.T) {
	parent := t.TempDir()
	dir := filepath.Join(parent, "out")
	if err := Write(dir, run("box", "card a", "card b"), false); err != nil {
		t.Fatal(err)
	}
	if got := names(t, dir); !slices.Equal(got, []string{"box-1.appraisal.json", "card-b.appraisal.json", "card-c.appraisal.json"}) {
		t.Fatalf("run directory holds %v", got)
	}
	if got := names(t, parent); !slices.Equal(got, []string{"out"}) {
		t.Fatalf("staging left beside it: %v", got)
	}
	b, err := os.ReadFile(filepath.Join(dir, "card-b.appraisal.json"))
	if err != nil || string(b) != "card a" {
		t.Fatalf("card-b: %q %v", b, err)
	}
	for _, p := range []string{dir, filepath.Join(dir, "box-1.appraisal.json")} {
		fi, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode().Perm()&0o044 != 0o044 {
			t.Errorf("%s: mode %v, want readable by all (reports are public)", p, fi.Mode())
		}
	}
}

// TestOverwriteReplacesTheWholeRun: an earlier run with more cards is
// replaced whole, so no card of it stays beside the new box.
func TestOverwriteReplacesTheWholeRun(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	if err := Write(dir, run("old box", "old a", "old b"), false); err != nil {
		t.Fatal(err)
	}
	if err := Write(dir, run("new box", "new a"), false); !errors.Is(err, ErrExists) {
		t.Fatalf("second run without overwrite: %v, want ErrExists", err)
	}
	if err := Check(dir, false); !errors.Is(err, ErrExists) {
		t.Fatalf("Check without overwrite: %v, want ErrExists", err)
	}
	if err := Check(dir, true); err != nil {
		t.Fatalf("Check with overwrite: %v", err)
	}
	if err := Write(dir, run("new box", "new a"), true); err != nil {
		t.Fatal(err)
	}
	if got := names(t, dir); !slices.Equal(got, []string{"box-1.appraisal.json", "card-b.appraisal.json"}) {
		t.Fatalf("after overwrite: %v", got)
	}
	if got := names(t, filepath.Dir(dir)); !slices.Equal(got, []string{"out"}) {
		t.Fatalf("left beside it: %v", got)
	}
}

func TestWriteIntoAnEmptyDirectory(t *testing.T) {
	dir := t.TempDir()
	if err := Check(dir, false); err != nil {
		t.Fatal(err)
	}
	if err := Write(dir, run("box"), false); err != nil {
		t.Fatal(err)
	}
	if got := names(t, dir); !slices.Equal(got, []string{"box-1.appraisal.json"}) {
		t.Fatalf("got %v", got)
	}
}

// TestForeignFilesAreNeverReplaced: a directory holding a file appraise
// did not write is refused, by Check and by Write, and the file stays.
func TestForeignFilesAreNeverReplaced(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"notes.txt", "card-x.appraisal.json"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte("mine"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(filepath.Join(dir, "card-dir.appraisal.json"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, err := range []error{Check(dir, true), Write(dir, run("box"), true)} {
		if !errors.Is(err, ErrUnusable) {
			t.Fatalf("got %v, want ErrUnusable", err)
		}
	}
	if got := names(t, dir); !slices.Equal(got, []string{"card-dir.appraisal.json", "card-x.appraisal.json", "notes.txt"}) {
		t.Fatalf("directory changed: %v", got)
	}
}

func TestUnusableTargets(t *testing.T) {
	parent := t.TempDir()
	file := filepath.Join(parent, "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(parent, "link")
	if err := os.Symlink(t.TempDir(), link); err != nil {
		t.Fatal(err)
	}
	t.Chdir(parent)
	for _, dir := range []string{file, filepath.Join(file, "out"), ".", parent, "/", link} {
		if err := Check(dir, true); !errors.Is(err, ErrUnusable) {
			t.Errorf("Check(%s): %v, want ErrUnusable", dir, err)
		}
	}
}

// TestLeftoversOfOursAreRemoved: staging directories of a dead writer
// and temporary files of the older writer are removed; a staging
// directory a live writer holds, and anything that is not ours, stay.
func TestLeftoversOfOursAreRemoved(t *testing.T) {
	parent := t.TempDir()
	dir := filepath.Join(parent, "out")
	mk := func(path, data string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	mk(filepath.Join(dir, ".card-a.appraisal.json.tmp-123"), "half")
	mk(filepath.Join(parent, ".out.appraise-dead", "card-a.appraisal.json"), "dead")
	mk(filepath.Join(parent, ".out.appraise-foreign", "notes.txt"), "someone's")
	mk(filepath.Join(parent, ".out.appraise-live", "card-a.appraisal.json"), "live")
	mk(filepath.Join(parent, ".other.appraise-dead", "card-a.appraisal.json"), "another target's")
	live, err := lockDir(filepath.Join(parent, ".out.appraise-live"))
	if err != nil {
		t.Fatal(err)
	}
	defer live.Close()
	if err := Write(dir, run("box"), false); err != nil {
		t.Fatal(err)
	}
	if got := names(t, dir); !slices.Equal(got, []string{"box-1.appraisal.json"}) {
		t.Fatalf("run directory: %v", got)
	}
	want := []string{".other.appraise-dead", ".out.appraise-foreign", ".out.appraise-live", "out"}
	if got := names(t, parent); !slices.Equal(got, want) {
		t.Fatalf("beside it: %v, want %v", got, want)
	}
}

// TestOverwriteReplacesDerivedFiles: a card's plot and its attestation,
// written beside it after the run (appraise plot, appraise export intoto),
// belong to that run: --overwrite replaces them with it, and without
// --overwrite they are named as the earlier run's files.
func TestOverwriteReplacesDerivedFiles(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	if err := Write(dir, run("old box", "old a"), false); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"card-b.svg", "card-b.sigstore.json"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte("derived"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := Check(dir, false); !errors.Is(err, ErrExists) {
		t.Fatalf("Check without overwrite: %v, want ErrExists", err)
	}
	if err := Write(dir, run("new box", "new a"), true); err != nil {
		t.Fatalf("overwrite of a run with derived files: %v", err)
	}
	if got := names(t, dir); !slices.Equal(got, []string{"box-1.appraisal.json", "card-b.appraisal.json"}) {
		t.Fatalf("after the overwrite: %v, want the new run alone", got)
	}
}

func TestOwned(t *testing.T) {
	for name, want := range map[string]bool{
		"card-6db1659cde1985c6.appraisal.json": true,
		"box-e2404b549d90.appraisal.json":      true,
		"card-software-0.draft.json":           true,
		"card-software-0.svg":                  true,
		".card-a.appraisal.json.tmp-123":       true,
		".card-a.svg.tmp-9":                    true,
		"card-software-0.sigstore.json":        true,
		".card-a.sigstore.json.tmp-0a1b":       true,
		"box-1.sigstore.json":                  false,
		"card-.sigstore.json":                  false,
		"box-.appraisal.json":                  false,
		"box-1.svg":                            false,
		"public.json":                          false,
		".bashrc":                              false,
		"card-a.appraisal.json.bak":            false,
		".notes.tmp-1":                         false,
	} {
		if got := Owned(name); got != want {
			t.Errorf("Owned(%q) = %v, want %v", name, got, want)
		}
	}
}

func TestWriteRefusesBadNames(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	for _, files := range [][]File{
		{{"box-1.appraisal.json", []byte("box")}, {"card-a.appraisal.json", []byte("1")}, {"card-a.appraisal.json", []byte("2")}},
		{{"../card-a.appraisal.json", []byte("1")}},
		{{"notes.txt", []byte("1")}},
		nil,
	} {
		if err := Write(dir, files, true); err == nil {
			t.Errorf("%v written", files)
		}
		if _, err := os.Stat(dir); !os.IsNotExist(err) {
			t.Errorf("%s created", dir)
		}
	}
}

package appraisal

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// ErrExists is returned when a report file would overwrite another.
var ErrExists = errors.New("report file already exists")

// File is one report file to write.
type File struct {
	// Name is the base name, e.g. "card-0000-01-00.0.appraisal.json".
	Name string
	// Data is the whole file.
	Data []byte
}

// WriteAll writes every file into dir or none of them: each goes to a
// temporary file that is synced before any is renamed into place, and a
// failure removes what was written. Existing files are refused unless
// overwrite is set.
func WriteAll(dir string, files []File, overwrite bool) (err error) {
	seen := map[string]bool{}
	for _, f := range files {
		if seen[f.Name] || f.Name != filepath.Base(f.Name) {
			return fmt.Errorf("report file name %q is repeated or not a plain name: nothing written", f.Name)
		}
		seen[f.Name] = true
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("create output directory: %w", err)
	}
	if !overwrite {
		for _, f := range files {
			if _, err := os.Lstat(filepath.Join(dir, f.Name)); err == nil {
				return fmt.Errorf("%w: %s", ErrExists, filepath.Join(dir, f.Name))
			}
		}
	}
	temps := make([]string, 0, len(files))
	defer func() {
		for _, t := range temps {
			os.Remove(t)
		}
	}()
	for _, f := range files {
		t, err := writeTemp(dir, f)
		if err != nil {
			return err
		}
		temps = append(temps, t)
	}
	var done []string
	for i, f := range files {
		final := filepath.Join(dir, f.Name)
		if err := os.Rename(temps[i], final); err != nil {
			for _, d := range done {
				os.Remove(d)
			}
			return fmt.Errorf("write %s: %w", final, err)
		}
		done = append(done, final)
	}
	temps = nil
	return syncDir(dir)
}

func writeTemp(dir string, f File) (string, error) {
	tf, err := os.CreateTemp(dir, "."+f.Name+".tmp-*")
	if err != nil {
		return "", fmt.Errorf("write %s: %w", f.Name, err)
	}
	name := tf.Name()
	_, werr := tf.Write(f.Data)
	serr := tf.Sync()
	cerr := tf.Close()
	if err := errors.Join(werr, serr, cerr); err != nil {
		os.Remove(name)
		return "", fmt.Errorf("write %s: %w", f.Name, err)
	}
	if err := os.Chmod(name, 0o644); err != nil {
		os.Remove(name)
		return "", fmt.Errorf("write %s: %w", f.Name, err)
	}
	return name, nil
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("sync %s: %w", dir, err)
	}
	defer d.Close()
	if err := d.Sync(); err != nil {
		return fmt.Errorf("sync %s: %w", dir, err)
	}
	return nil
}

package keys

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Names in the key directory; see the package documentation.
const (
	keyFileName      = "key.json"
	archiveDirName   = "archive"
	rotationsDirName = "rotations"
	signedDirName    = "signed"
	lockFileName     = ".lock"
	tempInfix        = ".tmp-"
	fileTimeLayout   = "20060102T150405Z"
	// MaxFileBytes bounds every file read from a key directory, and a
	// rotation statement wherever it is read: key.json embeds its rotation
	// statement, which lists the digest of every report the old key signed
	// (about 70 bytes each), so 64 MiB holds some 900,000 reports.
	MaxFileBytes = 64 << 20
)

// makeDirs creates dir and its subdirectories, mode 0700, and checks
// that they are safe (an existing one may not be).
func makeDirs(dir string) error {
	for _, d := range subdirs(dir) {
		if err := os.MkdirAll(d, 0o700); err != nil {
			return fmt.Errorf("keys: create key directory: %w", err)
		}
	}
	return checkDirs(dir)
}

// subdirs are dir and the subdirectories the package keeps in it.
func subdirs(dir string) []string {
	return []string{dir, filepath.Join(dir, archiveDirName), filepath.Join(dir, rotationsDirName), filepath.Join(dir, signedDirName)}
}

// checkDirs refuses a key directory, or a subdirectory of it, that others
// could write or that another user owns (see checkDirPermissions). Absent
// subdirectories are fine; an absent dir wraps fs.ErrNotExist.
func checkDirs(dir string) error {
	for i, d := range subdirs(dir) {
		fi, err := os.Stat(d)
		if errors.Is(err, fs.ErrNotExist) && i > 0 {
			continue
		}
		if err != nil {
			return fmt.Errorf("keys: %w", err)
		}
		if !fi.IsDir() {
			return fmt.Errorf("keys: %s: %w: not a directory", d, ErrCorruptKey)
		}
		if err := checkDirPermissions(d, fi); err != nil {
			return err
		}
	}
	return nil
}

// writeTemp writes data to a new file beside dir/name, created with O_EXCL
// and mode 0600 under a dot-name that is never read, and syncs it. It
// returns the temporary file's path; commit moves it into place.
func writeTemp(dir, name string, data []byte) (string, error) {
	var rnd [8]byte
	if _, err := rand.Read(rnd[:]); err != nil {
		return "", fmt.Errorf("keys: temporary name: %w", err)
	}
	tmp := filepath.Join(dir, "."+name+tempInfix+hex.EncodeToString(rnd[:]))
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return "", fmt.Errorf("keys: create temporary file: %w", err)
	}
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(tmp)
		return "", fmt.Errorf("keys: write %s: %w", tmp, err)
	}
	return tmp, nil
}

// commit renames tmp to dir/name and syncs dir. Unless replace is set, an
// existing dir/name is never overwritten: if it holds the same bytes, as
// after an interrupted earlier attempt, tmp is dropped; otherwise it is an
// error.
func commit(tmp, dir, name string, replace bool) error {
	final := filepath.Join(dir, name)
	if !replace {
		if done, err := alreadyCommitted(tmp, final); done || err != nil {
			os.Remove(tmp)
			return err
		}
	}
	if err := os.Rename(tmp, final); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("keys: %w", err)
	}
	return syncDir(dir)
}

// alreadyCommitted reports whether final exists with tmp's contents. It is an
// error for final to exist with other contents.
func alreadyCommitted(tmp, final string) (bool, error) {
	have, err := os.ReadFile(final)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("keys: %w", err)
	}
	want, err := os.ReadFile(tmp)
	if err != nil {
		return false, fmt.Errorf("keys: %w", err)
	}
	if !bytes.Equal(have, want) {
		return false, fmt.Errorf("keys: %s already exists with other contents", final)
	}
	return true, nil
}

// writeFile writes dir/name atomically: writeTemp, then commit.
func writeFile(dir, name string, data []byte, replace bool) error {
	tmp, err := writeTemp(dir, name, data)
	if err != nil {
		return err
	}
	return commit(tmp, dir, name, replace)
}

// removeTemps deletes leftovers of interrupted writes from dir and its
// subdirectories. Callers hold the directory lock.
func removeTemps(dir string) error {
	for _, d := range subdirs(dir) {
		entries, err := os.ReadDir(d)
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("keys: %w", err)
		}
		for _, e := range entries {
			if isTemp(e.Name()) {
				if err := os.Remove(filepath.Join(d, e.Name())); err != nil {
					return fmt.Errorf("keys: remove leftover: %w", err)
				}
			}
		}
	}
	return nil
}

// isTemp reports whether name is one of writeTemp's files.
func isTemp(name string) bool {
	return strings.HasPrefix(name, ".") && strings.Contains(name, tempInfix)
}

// listJSON returns the sorted names of the *.json files in dir, skipping
// dot-files (temporary files among them). A missing dir is empty.
func listJSON(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("keys: %w", err)
	}
	var names []string
	for _, e := range entries {
		n := e.Name()
		if !strings.HasPrefix(n, ".") && strings.HasSuffix(n, ".json") && e.Type().IsRegular() {
			names = append(names, n)
		}
	}
	slices.Sort(names)
	return names, nil
}

// readSecure reads a key file, refusing anything but a regular file that
// only its owner may read and write. A missing file's error wraps
// fs.ErrNotExist.
func readSecure(path string) ([]byte, error) {
	return readFile(path, checkPermissions)
}

// readFile reads a regular file of at most MaxFileBytes bytes, after
// check (when not nil) accepts what the open file is. A missing file's
// error wraps fs.ErrNotExist.
func readFile(path string, check func(string, fs.FileInfo) error) ([]byte, error) {
	fi, err := os.Lstat(path)
	if err != nil {
		return nil, fmt.Errorf("keys: %w", err)
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("keys: %s: %w: not a regular file", path, ErrCorruptKey)
	}
	f, err := os.OpenFile(path, openReadFlags, 0)
	if err != nil {
		return nil, fmt.Errorf("keys: %w", err)
	}
	defer f.Close()
	if fi, err = f.Stat(); err != nil {
		return nil, fmt.Errorf("keys: %w", err)
	}
	if !fi.Mode().IsRegular() { // replaced between Lstat and open
		return nil, fmt.Errorf("keys: %s: %w: not a regular file", path, ErrCorruptKey)
	}
	if check != nil {
		if err := check(path, fi); err != nil {
			return nil, err
		}
	}
	b, err := io.ReadAll(io.LimitReader(f, MaxFileBytes+1))
	if err != nil {
		return nil, fmt.Errorf("keys: read %s: %w", path, err)
	}
	if len(b) > MaxFileBytes {
		return nil, fmt.Errorf("keys: %s: %w: larger than %d bytes", path, ErrCorruptKey, MaxFileBytes)
	}
	return b, nil
}

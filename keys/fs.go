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

// The key directory (0700) holds files of mode 0600.
const (
	keyFileName      = "key.json"         // the current key
	archiveDirName   = "archive"          // retired key files, <created_at>-<fingerprint>.json
	rotationsDirName = "rotations"        // statements, <rotated_at>-<old fp>-<new fp>.json
	signedDirName    = "signed"           // ledgers, <fingerprint>: a hex SHA-256 per line
	lockFileName     = ".lock"            // flock(2) held by Init, Rotate and RecordSigned
	tempInfix        = ".tmp-"            // in .<name>.tmp-<random>, never read
	fileTimeLayout   = "20060102T150405Z" // UTC
	// MaxFileBytes bounds every file read from a key directory, and a
	// rotation statement wherever it is read.
	MaxFileBytes = 64 << 20
)

// makeDirs creates dir and its subdirectories, mode 0700, and checks them.
func makeDirs(dir string) error {
	for _, d := range subdirs(dir) {
		if err := os.MkdirAll(d, 0o700); err != nil {
			return fmt.Errorf("keys: create key directory: %w", err)
		}
	}
	return checkDirs(dir)
}

func subdirs(dir string) []string {
	return []string{dir, filepath.Join(dir, archiveDirName), filepath.Join(dir, rotationsDirName), filepath.Join(dir, signedDirName)}
}

// checkDirs applies checkDirPermissions to dir and its subdirectories;
// only an absent dir is an error, wrapping fs.ErrNotExist.
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

// writeTemp writes and syncs data in a new 0600 temporary file for commit.
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

// commit renames tmp to dir/name and syncs dir; unless replace is set, an
// existing dir/name with other bytes is an error.
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

func writeFile(dir, name string, data []byte, replace bool) error {
	tmp, err := writeTemp(dir, name, data)
	if err != nil {
		return err
	}
	return commit(tmp, dir, name, replace)
}

// removeTemps deletes leftover temporary files; callers hold the lock.
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

func isTemp(name string) bool {
	return strings.HasPrefix(name, ".") && strings.Contains(name, tempInfix)
}

// listJSON returns the sorted names of dir's *.json files but dot-files.
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

// readSecure is readFile with checkPermissions.
func readSecure(path string) ([]byte, error) {
	return readFile(path, checkPermissions)
}

// readFile reads a regular file of at most MaxFileBytes that check, if not
// nil, accepts. A missing file's error wraps fs.ErrNotExist.
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

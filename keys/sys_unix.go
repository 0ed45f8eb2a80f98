//go:build unix

package keys

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

// lockDir takes an exclusive flock(2) on dir/.lock without waiting, so that
// Init and Rotate never interleave. The kernel drops the lock if the process
// dies, so a crash never leaves the directory locked. Call unlock when done.
func lockDir(dir string) (unlock func(), err error) {
	f, err := os.OpenFile(filepath.Join(dir, lockFileName), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("keys: lock: %w", err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, fmt.Errorf("keys: %s: %w", dir, ErrBusy)
		}
		return nil, fmt.Errorf("keys: lock %s: %w", dir, err)
	}
	return func() { f.Close() }, nil
}

// syncDir makes a rename in dir durable.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("keys: sync directory: %w", err)
	}
	err = d.Sync()
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("keys: sync directory %s: %w", dir, err)
	}
	return nil
}

// checkPermissions refuses a key file that group or others may access.
func checkPermissions(path string, fi fs.FileInfo) error {
	if perm := fi.Mode().Perm(); perm&0o077 != 0 {
		return fmt.Errorf("keys: %s has mode %04o: %w; run: chmod 600 %s",
			path, perm, ErrInsecurePermissions, path)
	}
	return nil
}

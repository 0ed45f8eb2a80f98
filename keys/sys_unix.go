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

// openReadFlags do not block on a FIFO put in a file's place.
const openReadFlags = os.O_RDONLY | syscall.O_NONBLOCK

// lockDir takes an exclusive flock(2) on dir/.lock, or returns ErrBusy.
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

// lockDirWait takes the lock of lockDir, waiting for it.
func lockDirWait(dir string) (unlock func(), err error) {
	f, err := os.OpenFile(filepath.Join(dir, lockFileName), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("keys: lock: %w", err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		f.Close()
		return nil, fmt.Errorf("keys: lock %s: %w", dir, err)
	}
	return func() { f.Close() }, nil
}

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

// checkPermissions refuses a file that group or others may access or another user owns.
func checkPermissions(path string, fi fs.FileInfo) error {
	if err := checkOwner(path, fi); err != nil {
		return err
	}
	if perm := fi.Mode().Perm(); perm&0o077 != 0 {
		return fmt.Errorf("keys: %s has mode %04o: %w; run: chmod 600 %s",
			path, perm, ErrInsecurePermissions, path)
	}
	return nil
}

// checkDirPermissions refuses a directory others may write or another user owns.
func checkDirPermissions(path string, fi fs.FileInfo) error {
	if err := checkOwner(path, fi); err != nil {
		return err
	}
	if perm := fi.Mode().Perm(); perm&0o022 != 0 {
		return fmt.Errorf("keys: directory %s has mode %04o: %w; run: chmod 700 %s",
			path, perm, ErrInsecurePermissions, path)
	}
	return nil
}

func checkOwner(path string, fi fs.FileInfo) error {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return nil
	}
	if me := os.Geteuid(); int(st.Uid) != me {
		return fmt.Errorf("keys: %s is owned by uid %d, not by you (uid %d): %w; run: chown %d %s, or use a key directory of your own",
			path, st.Uid, me, ErrInsecurePermissions, me, path)
	}
	return nil
}

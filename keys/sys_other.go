//go:build !unix

package keys

import (
	"io/fs"
	"os"
)

// openReadFlags open a file for reading.
const openReadFlags = os.O_RDONLY

// lockDir does nothing where flock(2) is missing: there, Init and Rotate
// must not run concurrently on one directory.
func lockDir(dir string) (unlock func(), err error) {
	return func() {}, nil
}

// lockDirWait does nothing where flock(2) is missing.
func lockDirWait(dir string) (unlock func(), err error) {
	return func() {}, nil
}

// syncDir does nothing where directories cannot be synced.
func syncDir(dir string) error {
	return nil
}

// checkPermissions accepts every file where Unix permission bits do not
// apply.
func checkPermissions(path string, fi fs.FileInfo) error {
	return nil
}

// checkDirPermissions accepts every directory where Unix permission bits
// do not apply.
func checkDirPermissions(path string, fi fs.FileInfo) error {
	return nil
}

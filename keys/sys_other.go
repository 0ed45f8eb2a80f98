//go:build !unix

package keys

import (
	"io/fs"
	"os"
)

const openReadFlags = os.O_RDONLY

// Without flock(2) and Unix permissions, locking, syncing directories and
// permission checks do nothing: Init and Rotate must not run concurrently.
func lockDir(dir string) (unlock func(), err error) {
	return func() {}, nil
}

func lockDirWait(dir string) (unlock func(), err error) {
	return func() {}, nil
}

func syncDir(dir string) error {
	return nil
}

func checkPermissions(path string, fi fs.FileInfo) error {
	return nil
}

func checkDirPermissions(path string, fi fs.FileInfo) error {
	return nil
}

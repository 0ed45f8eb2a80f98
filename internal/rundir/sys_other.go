//go:build !linux

package rundir

import (
	"errors"
	"io/fs"
	"os"
)

// errNotSupported: this system has no RENAME_EXCHANGE.
var errNotSupported = errors.New("rename flag not supported on this system")

func renameNoReplace(from, to string) error { return os.Rename(from, to) }

func exchange(a, b string) error { return errNotSupported }

// lockDir opens dir without a lock; devOf is unknown, so no mount-point check.
func lockDir(dir string) (*os.File, error) { return os.Open(dir) }

func devOf(fs.FileInfo) uint64 { return 0 }

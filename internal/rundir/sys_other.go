//go:build !linux

package rundir

import (
	"errors"
	"io/fs"
	"os"
)

// errNotSupported: this system has no RENAME_EXCHANGE.
var errNotSupported = errors.New("rename flag not supported on this system")

// renameNoReplace is rename(2), which fails for a non-empty directory in
// the way.
func renameNoReplace(from, to string) error { return os.Rename(from, to) }

// exchange is not available here; Write moves the earlier run aside.
func exchange(a, b string) error { return errNotSupported }

// lockDir opens dir; there is no lock on this system.
func lockDir(dir string) (*os.File, error) { return os.Open(dir) }

// devOf is unknown here: no mount-point check.
func devOf(fs.FileInfo) uint64 { return 0 }

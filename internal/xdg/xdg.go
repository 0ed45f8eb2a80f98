// Package xdg finds or makes a runtime directory, the one the XDG Base
// Directory Specification has XDG_RUNTIME_DIR name, for a process whose
// environment names none it can use.
//
// RuntimeDir is the entry point; it changes no environment variable.
package xdg

import (
	"os"
	"path/filepath"
	"syscall"
)

// prefix begins the name of every directory RuntimeDir makes.
const prefix = "appraise-runtime-"

// Usable reports whether dir can be the effective user's runtime
// directory: an absolute path to a directory that user owns, with no
// access for group or others.
func Usable(dir string) bool {
	if !filepath.IsAbs(dir) {
		return false
	}
	fi, err := os.Stat(dir)
	if err != nil || !fi.IsDir() || fi.Mode().Perm()&0o077 != 0 {
		return false
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	return ok && int(st.Uid) == os.Geteuid()
}

// RuntimeDir returns current when it is Usable, with a nil remove.
// Otherwise it makes a fresh directory of mode 0700 under os.TempDir(),
// or under /tmp where that fails, and returns it with a remove that
// deletes it and whatever it holds. It fails only when neither can be
// made.
func RuntimeDir(current string) (dir string, remove func() error, err error) {
	if Usable(current) {
		return current, nil, nil
	}
	dir, err = os.MkdirTemp("", prefix)
	if err != nil && os.TempDir() != "/tmp" {
		dir, err = os.MkdirTemp("/tmp", prefix)
	}
	if err != nil {
		return "", nil, err
	}
	return dir, func() error { return os.RemoveAll(dir) }, nil
}

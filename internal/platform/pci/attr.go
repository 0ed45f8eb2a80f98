package pci

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// deviceDir returns the existing sysfs directory of bdf below root ("" or "/"
// is the running system).
func deviceDir(root string, bdf BDF) (string, error) {
	if root == "" {
		root = "/"
	}
	dir := filepath.Join(root, "sys", "bus", "pci", "devices", bdf.String())
	if _, err := os.Stat(dir); err != nil {
		return "", err // names the path
	}
	return dir, nil
}

// boundDriver returns the name of the driver bound to the device in dir, ""
// when none is.
func boundDriver(dir string) (string, error) {
	target, err := os.Readlink(filepath.Join(dir, "driver"))
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	return filepath.Base(target), nil
}

// attrs reads best-effort attribute files, noting under a field key why each
// unreadable one is missing.
type attrs struct {
	dir     string
	missing map[string]string
}

func (a *attrs) note(key, reason string) {
	if a.missing == nil {
		a.missing = map[string]string{}
	}
	a.missing[key] = reason
}

// text returns the trimmed content of file name, or "" with the reason noted
// under key when it is absent, unreadable or empty.
func (a *attrs) text(key, name string) string {
	b, err := os.ReadFile(filepath.Join(a.dir, name))
	switch {
	case errors.Is(err, fs.ErrNotExist):
		a.note(key, "the driver does not expose "+name)
		return ""
	case err != nil:
		a.note(key, "reading "+name+": "+err.Error())
		return ""
	}
	s := strings.TrimSpace(string(b))
	if s == "" {
		a.note(key, name+" is empty")
	}
	return s
}

// int and uint parse a decimal file, noting under key why one was not read.
func (a *attrs) int(key, name string) (int64, bool) {
	s := a.text(key, name)
	if s == "" {
		return 0, false
	}
	v, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		a.note(key, fmt.Sprintf("%s: %v", name, err))
		return 0, false
	}
	return v, true
}

func (a *attrs) uint(key, name string) (uint64, bool) {
	s := a.text(key, name)
	if s == "" {
		return 0, false
	}
	v, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		a.note(key, fmt.Sprintf("%s: %v", name, err))
		return 0, false
	}
	return v, true
}

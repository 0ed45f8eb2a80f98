// Package rundir puts the report files of one appraisal run into their
// directory all at once or not at all: a killed process leaves the old run
// or the whole new one, never a mix. Start with Write.
package rundir

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

var (
	// ErrExists: the target holds an earlier run and overwrite is false.
	ErrExists = errors.New("report files of an earlier run are in the way")
	// ErrUnusable: the target cannot receive a run, e.g. it holds foreign
	// files, is not writable, or is a mount point or the working directory.
	ErrUnusable = errors.New("unusable output directory")
)

// stagingInfix marks a staging directory, ".<target>.appraise-*", beside the target.
const stagingInfix = ".appraise-"

// File is one file of a run.
type File struct {
	Name string // a plain name that Owned accepts
	Data []byte
}

// Owned reports whether name is a file this tool writes in a run
// directory: a card or box report or draft, a file derived from a card, or
// the temporary file of one. Only such files are ever removed.
func Owned(name string) bool {
	if base, _, ok := strings.Cut(strings.TrimPrefix(name, "."), ".tmp-"); ok && strings.HasPrefix(name, ".") {
		return Owned(base)
	}
	for _, prefix := range []string{"card-", "box-"} {
		rest, ok := strings.CutPrefix(name, prefix)
		if !ok || rest == "" {
			continue
		}
		for _, ext := range []string{".appraisal.json", ".draft.json"} {
			if stem, ok := strings.CutSuffix(rest, ext); ok && stem != "" {
				return true
			}
		}
		for _, ext := range derivedExts {
			if stem, ok := strings.CutSuffix(rest, ext); ok && stem != "" && prefix == "card-" {
				return true
			}
		}
	}
	return false
}

// derivedExts end the names of files derived from a card: its plot and attestation.
var derivedExts = []string{".svg", ".sigstore.json"}

// leftover reports whether name is a temporary file of an interrupted write.
func leftover(name string) bool {
	return strings.HasPrefix(name, ".") && Owned(name)
}

type target struct {
	abs, parent, base string
}

func resolve(dir string) (target, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return target{}, fmt.Errorf("%w: %s: %w", ErrUnusable, dir, err)
	}
	t := target{abs: abs, parent: filepath.Dir(abs), base: filepath.Base(abs)}
	if t.parent == abs {
		return target{}, fmt.Errorf("%w: %s is the root directory", ErrUnusable, dir)
	}
	return t, nil
}

type state struct {
	exists bool
	ours   []string // finished files of an earlier run
}

// inspect reads the target and refuses what Write could not replace whole.
func inspect(t target, dir string) (state, error) {
	fi, err := os.Lstat(t.abs)
	if errors.Is(err, fs.ErrNotExist) {
		return state{}, nil
	}
	if err != nil {
		return state{}, fmt.Errorf("%w: %w", ErrUnusable, err)
	}
	if fi.Mode()&fs.ModeSymlink != 0 {
		return state{}, fmt.Errorf("%w: %s is a symbolic link; name the directory it points to (the run replaces what --out names)", ErrUnusable, dir)
	}
	if !fi.IsDir() {
		return state{}, fmt.Errorf("%w: %s is not a directory", ErrUnusable, dir)
	}
	if err := replaceable(t, dir, fi); err != nil {
		return state{}, err
	}
	entries, err := os.ReadDir(t.abs)
	if err != nil {
		return state{}, fmt.Errorf("%w: %w", ErrUnusable, err)
	}
	st := state{exists: true}
	var foreign []string
	for _, e := range entries {
		switch {
		case !e.Type().IsRegular() || !Owned(e.Name()):
			foreign = append(foreign, e.Name())
		case !leftover(e.Name()):
			st.ours = append(st.ours, e.Name())
		}
	}
	if len(foreign) > 0 {
		return state{}, fmt.Errorf("%w: %s holds %s, which appraise did not write; a run's files become visible together only in a directory of their own",
			ErrUnusable, dir, quoteSome(foreign))
	}
	return st, nil
}

// replaceable refuses the working directory and a mount point.
func replaceable(t target, dir string, fi fs.FileInfo) error {
	if wd, err := os.Stat("."); err == nil && os.SameFile(wd, fi) {
		return fmt.Errorf("%w: %s is the working directory; name a new directory for the run", ErrUnusable, dir)
	}
	if pfi, err := os.Stat(t.parent); err == nil && devOf(pfi) != devOf(fi) {
		return fmt.Errorf("%w: %s is a mount point; name a new directory inside it", ErrUnusable, dir)
	}
	return nil
}

func quoteSome(names []string) string {
	slices.Sort(names)
	out := make([]string, 0, 4)
	for i, n := range names {
		if i == 3 {
			out = append(out, fmt.Sprintf("and %d more", len(names)-3))
			break
		}
		out = append(out, fmt.Sprintf("%q", n))
	}
	return strings.Join(out, ", ")
}

// Check reports, before any work is done, whether Write could put a run
// into dir. It leaves nothing behind.
func Check(dir string, overwrite bool) error {
	t, err := resolve(dir)
	if err != nil {
		return err
	}
	st, err := inspect(t, dir)
	if err != nil {
		return err
	}
	if len(st.ours) > 0 && !overwrite {
		return fmt.Errorf("%w: %s holds %s", ErrExists, dir, quoteSome(st.ours))
	}
	return probeWritable(t.parent)
}

// probeWritable creates and removes a directory in the nearest existing
// directory at or above dir.
func probeWritable(dir string) error {
	for {
		fi, err := os.Stat(dir)
		if err == nil {
			if !fi.IsDir() {
				return fmt.Errorf("%w: %s is not a directory", ErrUnusable, dir)
			}
			break
		}
		if !errors.Is(err, fs.ErrNotExist) || filepath.Dir(dir) == dir {
			return fmt.Errorf("%w: %w", ErrUnusable, err)
		}
		dir = filepath.Dir(dir)
	}
	p, err := os.MkdirTemp(dir, "."+stagingInfix+"probe-")
	if err != nil {
		return fmt.Errorf("%w: cannot create a directory in %s: %w", ErrUnusable, dir, err)
	}
	return os.Remove(p)
}

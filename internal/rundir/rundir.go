// Package rundir puts the report files of one appraisal run into their
// directory all at once or not at all.
//
// Start with Write. The files are written into a fresh staging directory
// beside the target, each synced, the staging directory synced, and then
// one rename makes the whole directory visible under the target's name:
// renameat2(RENAME_NOREPLACE) when the target does not exist, or
// renameat2(RENAME_EXCHANGE) when it is an empty directory or holds an
// earlier run being replaced (--overwrite). At no instant does the target
// hold part of a run, or parts of two runs; a process killed at any point
// leaves the target as it was, or with the whole new run.
//
// What is left behind by a kill is recognised by its name and removed by
// the next Write for the same target: staging directories named
// ".<target>.appraise-<random>" beside it, which a live writer holds
// locked (flock) so that no other writer removes them. Inside a directory
// only names this tool writes are ever removed (see Owned); a directory
// that holds anything else is never replaced, and is refused by Check
// before any work is done.
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
	// ErrExists: the target holds files of an earlier run and overwrite
	// was not asked for.
	ErrExists = errors.New("report files of an earlier run are in the way")
	// ErrUnusable: the target cannot receive a run (not a directory,
	// holds files this tool did not write, not writable, a mount point or
	// the working directory).
	ErrUnusable = errors.New("unusable output directory")
)

// stagingInfix marks a staging directory: ".<target>" + stagingInfix +
// random characters, beside the target.
const stagingInfix = ".appraise-"

// File is one file of a run.
type File struct {
	// Name is a plain file name (no directory), one of Owned's.
	Name string
	// Data is the whole file.
	Data []byte
}

// Owned reports whether a file named name in a run directory is one this
// tool writes: a card or box report, an unsigned draft, a file derived
// from a card and written beside it (its plot, "appraise plot"; its
// attestation, "appraise export intoto"), or a temporary file of one of
// those left by an interrupted write. A derived file belongs to the run
// it was made from, so --overwrite replaces it with that run.
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

// derivedExts end the names of files derived from a card that appraise
// writes beside it by default: "card-<x>.svg" (appraise plot) and
// "card-<x>.sigstore.json" (appraise export intoto).
var derivedExts = []string{".svg", ".sigstore.json"}

// leftover reports whether name is a temporary file of an interrupted
// write (never a finished report).
func leftover(name string) bool {
	return strings.HasPrefix(name, ".") && Owned(name)
}

// target is a resolved output directory.
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

// state is what the target holds now.
type state struct {
	exists bool
	// ours are the names of finished files of an earlier run.
	ours []string
}

// inspect reads the target and refuses what Write could not replace
// whole: a non-directory, foreign files, the working directory, a mount
// point.
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

// replaceable refuses an existing directory that a rename cannot replace:
// the working directory (the shell would be left in a removed one) and a
// mount point.
func replaceable(t target, dir string, fi fs.FileInfo) error {
	if wd, err := os.Stat("."); err == nil && os.SameFile(wd, fi) {
		return fmt.Errorf("%w: %s is the working directory; name a new directory for the run", ErrUnusable, dir)
	}
	if pfi, err := os.Stat(t.parent); err == nil && devOf(pfi) != devOf(fi) {
		return fmt.Errorf("%w: %s is a mount point; name a new directory inside it", ErrUnusable, dir)
	}
	return nil
}

// quoteSome names up to three entries, and how many more there are.
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

// Check says, before any work is done, whether Write could put a run into
// dir: dir must be absent, an empty directory, or (with overwrite) a
// directory holding only an earlier run's files, and the nearest existing
// directory at or above it must take a new directory. It creates nothing
// but a staging directory that it removes again.
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

// probeWritable creates and removes a staging directory in the nearest
// existing directory at or above dir: a read-only filesystem or a
// directory without write permission fails here, not after the run.
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

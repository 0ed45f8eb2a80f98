package rundir

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Write puts files into dir as one run: all of them become visible at
// once, by one rename, or none does. dir must be absent, an empty
// directory, or (with overwrite) a directory holding only files this tool
// writes (see Owned), which the new run then replaces whole: the earlier
// run's files are removed, not mixed with the new ones. Leftovers of
// interrupted writes to dir are removed first. On an error nothing is
// visible in dir that was not there before, and nothing of this call is
// left behind.
func Write(dir string, files []File, overwrite bool) error {
	if err := checkNames(files); err != nil {
		return err
	}
	t, err := resolve(dir)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(t.parent, 0o755); err != nil {
		return fmt.Errorf("%w: %w", ErrUnusable, err)
	}
	if err := removeLeftovers(t); err != nil {
		return err
	}
	st, err := inspect(t, dir)
	if err != nil {
		return err
	}
	if len(st.ours) > 0 && !overwrite {
		return fmt.Errorf("%w: %s holds %s", ErrExists, dir, quoteSome(st.ours))
	}
	s, err := stage(t, files)
	if err != nil {
		return err
	}
	defer s.release()
	if err := s.commit(t, st.exists); err != nil {
		return fmt.Errorf("write %s: %w", dir, err)
	}
	return nil
}

// checkNames refuses names that are repeated, not plain, or not Owned
// (Write could not recognise them as its own later).
func checkNames(files []File) error {
	seen := map[string]bool{}
	for _, f := range files {
		if seen[f.Name] || f.Name != filepath.Base(f.Name) || !Owned(f.Name) || strings.HasPrefix(f.Name, ".") {
			return fmt.Errorf("report file name %q is repeated, not a plain name or not a report's: nothing written", f.Name)
		}
		seen[f.Name] = true
	}
	if len(files) == 0 {
		return errors.New("no report files to write")
	}
	return nil
}

// staging is a filled staging directory, locked by this process.
type staging struct {
	path string
	lock *os.File
}

// stage creates a locked staging directory beside the target and writes
// and syncs every file in it, and the directory itself. On an error it
// removes what it made.
func stage(t target, files []File) (s *staging, err error) {
	p, err := os.MkdirTemp(t.parent, "."+t.base+stagingInfix)
	if err != nil {
		return nil, err
	}
	s = &staging{path: p}
	defer func() {
		if err != nil {
			s.release()
			removeRun(p)
		}
	}()
	if s.lock, err = lockDir(p); err != nil {
		return s, err
	}
	for _, f := range files {
		if err := writeSynced(filepath.Join(p, f.Name), f.Data); err != nil {
			return s, err
		}
	}
	if err := os.Chmod(p, 0o755); err != nil {
		return s, err
	}
	return s, syncDir(p)
}

// release drops the staging directory's lock.
func (s *staging) release() {
	if s.lock != nil {
		s.lock.Close()
		s.lock = nil
	}
}

// commit makes the staged run visible under the target's name by one
// rename and syncs the parent. An existing target (empty, or an earlier
// run) is swapped out with RENAME_EXCHANGE and then removed; where the
// filesystem has no exchange, an empty target is replaced by a plain
// rename, and an earlier run is first moved aside (the target is then
// briefly absent: still never a mix).
func (s *staging) commit(t target, exists bool) error {
	var err error
	switch {
	case !exists:
		err = renameNoReplace(s.path, t.abs)
	default:
		err = exchange(s.path, t.abs)
		if errors.Is(err, errNotSupported) {
			err = s.replaceWithoutExchange(t)
		}
	}
	if err != nil {
		removeRun(s.path)
		return err
	}
	if exists {
		removeRun(s.path) // now the earlier contents of the target
	}
	return syncDir(t.parent)
}

// replaceWithoutExchange replaces an existing target on a filesystem
// without RENAME_EXCHANGE: the earlier run is moved aside to a staging
// name (a leftover the next Write removes if this process dies), the new
// run renamed into place, and the earlier one left at s.path for commit
// to remove.
func (s *staging) replaceWithoutExchange(t target) error {
	// A name that does not exist: rename(2) would replace an empty
	// directory there, but os.Rename refuses any directory in the way.
	aside := s.path + "-old"
	if err := os.Rename(t.abs, aside); err != nil {
		return err
	}
	if err := os.Rename(s.path, t.abs); err != nil {
		if rerr := os.Rename(aside, t.abs); rerr != nil {
			return errors.Join(err, rerr)
		}
		return err
	}
	s.path = aside
	return nil
}

// writeSynced creates path (it must not exist), writes data and syncs it.
func writeSynced(path string, data []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	_, werr := f.Write(data)
	serr := f.Sync()
	cerr := f.Close()
	if err := errors.Join(werr, serr, cerr); err != nil {
		return fmt.Errorf("write %s: %w", filepath.Base(path), err)
	}
	return os.Chmod(path, 0o644) // the umask may have taken bits
}

// syncDir makes the entries of dir durable.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	err = d.Sync()
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("sync %s: %w", dir, err)
	}
	return nil
}

// removeLeftovers removes the staging directories of earlier, dead
// writers to the same target, and any temporary files of the earlier
// one-file-at-a-time writer inside the target.
func removeLeftovers(t target) error {
	entries, err := os.ReadDir(t.parent)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrUnusable, err)
	}
	for _, e := range entries {
		if !e.IsDir() || !strings.HasPrefix(e.Name(), "."+t.base+stagingInfix) {
			continue
		}
		p := filepath.Join(t.parent, e.Name())
		lock, err := lockDir(p)
		if err != nil {
			continue // a live writer holds it, or it is gone
		}
		removeRun(p)
		lock.Close()
	}
	inside, err := os.ReadDir(t.abs)
	if err != nil {
		return nil // absent, or not a directory: inspect says which
	}
	for _, e := range inside {
		if e.Type().IsRegular() && leftover(e.Name()) {
			if err := os.Remove(filepath.Join(t.abs, e.Name())); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return fmt.Errorf("remove leftover %s: %w", e.Name(), err)
			}
		}
	}
	return nil
}

// removeRun removes the files Owned names from dir, then dir itself if
// that left it empty: anything else in it is kept.
func removeRun(dir string) {
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if e.Type().IsRegular() && Owned(e.Name()) {
			os.Remove(filepath.Join(dir, e.Name()))
		}
	}
	os.Remove(dir) // fails, and keeps dir, when something else is in it
}

package rundir

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Write puts files into dir as one run, made visible whole by one rename.
// dir must be absent, empty, or, with overwrite, hold only Owned files,
// which the new run replaces. Leftovers of interrupted writes are removed
// first. On an error dir is as it was and nothing of this call is left.
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

// checkNames refuses names that are repeated, not plain, or not Owned.
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

// stage writes and syncs files in a new locked directory beside the target.
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

func (s *staging) release() {
	if s.lock != nil {
		s.lock.Close()
		s.lock = nil
	}
}

// commit renames the staged run into place, exchanging it with an existing
// target where the filesystem can, and removes what it replaced.
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

// replaceWithoutExchange moves the target aside under a staging name, so
// it is briefly absent, renames the run into place and leaves the earlier
// run at s.path.
func (s *staging) replaceWithoutExchange(t target) error {
	aside := s.path + "-old" // new: os.Rename refuses any directory in the way
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

// writeSynced creates path, which must not exist, and writes and syncs data.
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

// removeLeftovers removes unlocked staging directories of the target and
// temporary files inside it.
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

// removeRun removes the Owned files of dir, then dir if that emptied it.
func removeRun(dir string) {
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if e.Type().IsRegular() && Owned(e.Name()) {
			os.Remove(filepath.Join(dir, e.Name()))
		}
	}
	os.Remove(dir) // fails, and keeps dir, when something else is in it
}

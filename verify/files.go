package verify

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sync"

	"github.com/everycycle/appraise/keys"
)

// MaxFileBytes is the largest report file read.
const MaxFileBytes = 8 << 20

// ReportPattern is what a report file's name matches in a directory.
const ReportPattern = "*.appraisal.json"

// Errors of ReadFile.
var (
	ErrNotRegular = errors.New("not a regular file")
	ErrTooLarge   = errors.New("file too large")
)

// ReadFile reads a regular file of at most max bytes, opening it without
// blocking and reading no more than max+1 bytes.
func ReadFile(path string, max int64) ([]byte, error) {
	f, err := os.OpenFile(path, openFlags, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: %w (%s)", path, ErrNotRegular, fi.Mode().Type())
	}
	if fi.Size() > max {
		return nil, fmt.Errorf("%s: %w: %d bytes, more than %d", path, ErrTooLarge, fi.Size(), max)
	}
	var buf bytes.Buffer
	buf.Grow(int(fi.Size()) + 1)
	if _, err := buf.ReadFrom(io.LimitReader(f, max+1)); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if int64(buf.Len()) > max {
		return nil, fmt.Errorf("%s: %w: more than %d bytes", path, ErrTooLarge, max)
	}
	return buf.Bytes(), nil
}

// Options configure Files.
type Options struct {
	Policy Policy // judges the keys
	Box    string // a box the cards may link; if set, none is sought beside them
}

// Files verifies report files and directories, each file once. A
// directory is a run directory of its ReportPattern files, and one with
// none is an error. A card given alone may link a box found beside it.
func Files(paths []string, o Options) ([]Verdict, error) {
	inputs, err := expand(paths)
	if err != nil {
		return nil, err
	}
	if o.Box != "" {
		inputs = append(inputs, fileInput{path: o.Box})
	}
	c := NewChecker(o.Policy)
	seen := map[string]bool{}
	c.addAll(once(inputs, seen))
	if o.Box == "" {
		var beside []fileInput
		for _, dir := range c.needsBox() {
			boxes, _ := filepath.Glob(filepath.Join(dir, "box-"+ReportPattern))
			for _, b := range boxes {
				beside = append(beside, fileInput{path: b, linkOnly: true})
			}
		}
		c.addAll(once(beside, seen))
	}
	return c.Verdicts(), nil
}

func once(inputs []fileInput, seen map[string]bool) []fileInput {
	out := inputs[:0:0]
	for _, in := range inputs {
		abs, err := filepath.Abs(in.path)
		if err == nil && seen[abs] {
			continue
		}
		seen[abs] = true
		out = append(out, in)
	}
	return out
}

// addAll parses the files on every CPU, holding at most one file per
// worker, and adds them in order.
func (c *Checker) addAll(inputs []fileInput) {
	entries := make([]*entry, len(inputs))
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(inputs)) {
		wg.Go(func() {
			for i := range next {
				entries[i] = parse(inputs[i].read(), c.judge)
			}
		})
	}
	for i := range inputs {
		next <- i
	}
	close(next)
	wg.Wait()
	for _, e := range entries {
		c.add(e)
	}
}

type fileInput struct {
	path     string
	wholeRun bool
	linkOnly bool
}

func (f fileInput) read() Input {
	data, err := ReadFile(f.path, MaxFileBytes)
	return Input{File: f.path, Dir: filepath.Dir(f.path), Data: data, Err: err, WholeRun: f.wholeRun, LinkOnly: f.linkOnly}
}

// Listed is one report file of Expand.
type Listed struct {
	Path     string
	WholeRun bool // listed from a run directory
}

// Expand returns the report files paths stand for, as Files reads them.
func Expand(paths []string) ([]Listed, error) {
	in, err := expand(paths)
	if err != nil {
		return nil, err
	}
	out := make([]Listed, len(in))
	for i, f := range in {
		out[i] = Listed{Path: f.path, WholeRun: f.wholeRun}
	}
	return out, nil
}

// expand returns each directory's report files, sorted, and other paths as given.
func expand(paths []string) ([]fileInput, error) {
	var out []fileInput
	for _, p := range paths {
		if st, err := os.Stat(p); err != nil || !st.IsDir() {
			out = append(out, fileInput{path: p})
			continue
		}
		m, err := filepath.Glob(filepath.Join(p, ReportPattern))
		if err != nil {
			return nil, err
		}
		if len(m) == 0 {
			return nil, fmt.Errorf("%s: no %s files", p, ReportPattern)
		}
		slices.Sort(m)
		for _, f := range m {
			out = append(out, fileInput{path: f, wholeRun: true})
		}
	}
	return out, nil
}

// ReadStatements reads rotation statements from files and the *.json files
// of directories, without verifying them.
func ReadStatements(paths []string) ([]*keys.RotationStatement, error) {
	var sts []*keys.RotationStatement
	for _, p := range paths {
		files := []string{p}
		if st, err := os.Stat(p); err == nil && st.IsDir() {
			m, err := filepath.Glob(filepath.Join(p, "*.json"))
			if err != nil {
				return nil, err
			}
			if len(m) == 0 {
				return nil, fmt.Errorf("%s: no *.json files", p)
			}
			slices.Sort(m)
			files = m
		}
		for _, f := range files {
			b, err := ReadFile(f, keys.MaxFileBytes)
			if err != nil {
				return nil, err
			}
			st, err := keys.ParseRotationStatement(b)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", f, err)
			}
			sts = append(sts, st)
		}
	}
	return sts, nil
}

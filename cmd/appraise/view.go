package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/everycycle/appraise/keys"
	"github.com/everycycle/appraise/verify"
	"github.com/everycycle/appraise/web"
)

// viewCmd writes a self-contained index.html that verifies and shows the
// embedded reports in a browser.
type viewCmd struct {
	Paths []string `arg:"" placeholder:"CARD|DIR" help:"Card and box reports, or directories whose *.appraisal.json files are all embedded (a run's directory must hold a card of every device its box lists, as for verify)."`
	Out   string   `placeholder:"DIR" help:"Write index.html into DIR, created if missing (default: a new directory in the system's temporary directory)."`
	Trust string   `placeholder:"PUBKEY|FILE" help:"Pin the tenant key in the page: a base64 public key, or a file from 'appraise keys export-public'. Without it the page shows the key as not pinned."`
}

func (c *viewCmd) Run(e *env) error {
	trust, err := c.trustFile()
	if err != nil {
		return err
	}
	files, err := viewFiles(c.Paths)
	if err != nil {
		return err
	}
	page, err := web.WithReports(files, trust)
	if err != nil {
		return err
	}
	dir := c.Out
	if dir == "" {
		if dir, err = os.MkdirTemp("", "appraise-view-"); err != nil {
			return err
		}
	} else if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	out := filepath.Join(dir, "index.html")
	if err := writeFileAtomic(out, page); err != nil {
		return err
	}
	_, err = fmt.Fprintln(e.stdout, out)
	return err
}

// trustFile reads --trust as verify does; a bad key is exit 2.
func (c *viewCmd) trustFile() (*web.File, error) {
	if c.Trust == "" {
		return nil, nil
	}
	f := &web.File{Name: "--trust", Data: []byte(c.Trust)}
	if b, err := os.ReadFile(c.Trust); err == nil {
		f = &web.File{Name: filepath.Base(c.Trust), Data: b}
	}
	if _, err := keys.ParsePublicKeyFile(f.Data); err != nil {
		return nil, withCode(exitUsage, fmt.Errorf("--trust: %w", err), "give a base64 public key or a file from 'appraise keys export-public'")
	}
	return f, nil
}

// viewFiles reads the reports to embed, each once, as verify lists them,
// adding the box reports beside each named card.
func viewFiles(paths []string) ([]web.File, error) {
	listed, err := verify.Expand(paths)
	if err != nil {
		return nil, err
	}
	names, fromDir := make([]string, len(listed)), map[string]bool{}
	for i, l := range listed {
		names[i], fromDir[l.Path] = l.Path, l.WholeRun
	}
	var files []web.File
	seen := map[string]bool{}
	add := func(name string, listed, beside bool) error {
		abs, err := filepath.Abs(name)
		if err != nil {
			return err
		}
		if seen[abs] {
			return nil
		}
		seen[abs] = true
		b, err := verify.ReadFile(name, verify.MaxFileBytes)
		if err != nil {
			return err
		}
		files = append(files, web.File{Name: name, Dir: filepath.Dir(name), Listed: listed, Beside: beside, Data: b})
		return nil
	}
	for _, n := range names {
		if err := add(n, fromDir[n], false); err != nil {
			return nil, err
		}
	}
	for _, n := range names {
		if fromDir[n] {
			continue
		}
		boxes, _ := filepath.Glob(filepath.Join(filepath.Dir(n), "box-*.appraisal.json"))
		for _, b := range boxes {
			if err := add(b, false, true); err != nil {
				return nil, err
			}
		}
	}
	return files, nil
}

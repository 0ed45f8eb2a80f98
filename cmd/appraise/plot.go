package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/everycycle/appraise/internal/render/plot"
)

// plotCmd draws a verified card's roofline and thermal timeline as SVG.
type plotCmd struct {
	Card string `arg:"" type:"existingfile" help:"Card report to plot."`
	Out  string `short:"o" placeholder:"FILE.svg" help:"Write the SVG here (default: beside the card, named like it with .svg)."`
	trustFlags
}

func (c *plotCmd) Run(e *env, g *globals) error {
	pol, err := c.policy()
	if err != nil {
		return err
	}
	p, err := readCardFile(e, g, c.Card, c.trustFlags, pol)
	if err != nil {
		var h hinter
		if exitCode(err) == exitVerify && !(errors.As(err, &h) && h.Hint() != "") {
			return withCode(exitVerify, err, "plots are drawn from signed data only; 'appraise verify' says more")
		}
		return err
	}
	svg, err := plot.Card(p)
	if err != nil {
		return fmt.Errorf("%s: %w", c.Card, err)
	}
	out := c.Out
	if out == "" {
		out = plotPath(c.Card)
	}
	if err := writeFileAtomic(out, svg); err != nil {
		return err
	}
	_, err = fmt.Fprintln(e.stdout, out)
	return err
}

// plotPath is card's path with its extension replaced by ".svg".
func plotPath(card string) string {
	base, ok := strings.CutSuffix(card, ".appraisal.json")
	if !ok {
		base = strings.TrimSuffix(card, filepath.Ext(card))
	}
	return base + ".svg"
}

// writeFileAtomic writes data to path by a temporary file and a rename.
func writeFileAtomic(path string, data []byte) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	tmp := f.Name()
	_, werr := f.Write(data)
	serr := f.Sync()
	cerr := f.Close()
	err = errors.Join(werr, serr, cerr)
	if err == nil {
		err = os.Chmod(tmp, 0o644)
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

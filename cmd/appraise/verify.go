package main

import (
	"errors"
	"fmt"
	"text/tabwriter"

	"github.com/everycycle/appraise/verify"
)

// errVerify is returned when any report fails verification.
var errVerify = errors.New("verification failed")

// verifyCmd checks reports with the policy of internal/verify.
type verifyCmd struct {
	Paths []string `arg:"" placeholder:"CARD|DIR" help:"Report files, or run directories whose *.appraisal.json files are all checked (each box's whole run must be there)."`
	Box   string   `placeholder:"BOX" help:"Box report the cards link (default: found beside each card by its hash)."`
	trustFlags
	JSON bool `name:"json" help:"Print JSON instead of a table."`
}

func (c *verifyCmd) Run(e *env, g *globals) error {
	pol, err := c.policy()
	if err != nil {
		return err
	}
	verdicts, err := verify.Files(c.Paths, verify.Options{Policy: pol, Box: c.Box})
	if err != nil {
		return withCode(exitUsage, err, "give card or box reports, or directories that hold them")
	}
	if err := c.render(e, verdicts); err != nil {
		return err
	}
	// A software adapter's signed card may disagree: valid, but the reader is told.
	for _, v := range verdicts {
		warnDisagreements(e.stderr, "appraise: warning: "+v.File+": ", v.Disagreements)
	}
	failed := 0
	for _, v := range verdicts {
		if !v.OK {
			failed++
		}
	}
	if failed > 0 {
		return withCode(exitVerify, fmt.Errorf("%w: %d of %d reports", errVerify, failed, len(verdicts)), c.rotationsHint(e, g, pol, verdicts))
	}
	if !pol.Pinned() {
		fmt.Fprintln(e.stderr, "appraise: warning: signatures are valid, but no key is pinned: pass --trust with the tenant's public key")
	}
	return nil
}

func (c *verifyCmd) render(e *env, verdicts []verify.Verdict) error {
	if c.JSON {
		return e.printJSON(verdicts)
	}
	tw := tabwriter.NewWriter(e.stdout, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "FILE\tKIND\tRESULT\tKEY\tTRUST\tDETAIL")
	for _, v := range verdicts {
		result, detail := "ok", v.Box
		if detail != "" {
			detail = "box " + detail
		}
		if !v.OK {
			result, detail = "FAIL", string(v.Class)+": "+v.Error
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", v.File, v.Kind, result, dash(v.Fingerprint), dash(string(v.Trust)), detail)
	}
	return tw.Flush()
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

package main

import (
	"errors"
	"fmt"
	"math"
	"os"
	"text/tabwriter"

	"github.com/everycycle/appraise/internal/figures"
	"github.com/everycycle/appraise/schema"
)

// errEnvDiffers is returned when two cards were probed under different
// environments and --force was not given.
var errEnvDiffers = errors.New("probe environments differ")

// compareCmd prints per-figure deltas between two verified cards.
type compareCmd struct {
	A     string `arg:"" type:"existingfile" help:"Baseline card report."`
	B     string `arg:"" type:"existingfile" help:"Card report to compare with the baseline."`
	Force bool   `help:"Compare even when the probe environments differ."`
	JSON  bool   `name:"json" help:"Print JSON instead of a table."`
}

// comparison is what compare prints.
type comparison struct {
	A           string          `json:"a"`
	B           string          `json:"b"`
	Differences []string        `json:"environment_differences"`
	Figures     []figures.Delta `json:"figures"`
}

func (c *compareCmd) Run(e *env) error {
	a, err := readCardFile(c.A)
	if err != nil {
		return err
	}
	b, err := readCardFile(c.B)
	if err != nil {
		return err
	}
	diffs := figures.EnvironmentDifferences(a.Capability.Environment, b.Capability.Environment)
	if len(diffs) > 0 && !c.Force {
		for _, d := range diffs {
			fmt.Fprintf(e.stderr, "appraise: %s\n", d)
		}
		return withCode(exitEnvDiffers, errEnvDiffers, "the figures are not directly comparable; pass --force to compare anyway")
	}
	out := comparison{A: c.A, B: c.B, Differences: diffs, Figures: figures.Compare(a.Capability, b.Capability)}
	if out.Differences == nil {
		out.Differences = []string{}
	}
	if c.JSON {
		return e.printJSON(out)
	}
	return writeComparison(e, out)
}

func writeComparison(e *env, c comparison) error {
	for _, d := range c.Differences {
		fmt.Fprintf(e.stdout, "environment differs: %s\n", d)
	}
	tw := tabwriter.NewWriter(e.stdout, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "FIGURE\tUNIT\tA\tB\tDELTA")
	for _, f := range c.Figures {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", f.Name, f.Unit, num(f.A), num(f.B), pct(f.Relative))
	}
	return tw.Flush()
}

func num(p *float64) string {
	if p == nil {
		return "-"
	}
	return fmt.Sprintf("%.4g", *p)
}

func pct(p *float64) string {
	if p == nil || math.IsInf(*p, 0) || math.IsNaN(*p) {
		return "-"
	}
	return fmt.Sprintf("%+.1f%%", *p*100)
}

// readCardFile reads and verifies one card report.
func readCardFile(path string) (*schema.CardPayload, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	p, _, err := schema.ReadCard(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return p, nil
}

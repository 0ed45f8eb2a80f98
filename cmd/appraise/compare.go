package main

import (
	"errors"
	"fmt"
	"math"
	"text/tabwriter"

	"github.com/everycycle/appraise/internal/render/figures"
)

// errEnvDiffers: the cards' probe environments differ and --force is unset.
var errEnvDiffers = errors.New("probe environments differ")

// compareCmd prints per-figure deltas between two verified cards.
type compareCmd struct {
	A     string `arg:"" type:"existingfile" help:"Baseline card report."`
	B     string `arg:"" type:"existingfile" help:"Card report to compare with the baseline."`
	Force bool   `help:"Compare even when the probe environments differ."`
	JSON  bool   `name:"json" help:"Print JSON instead of a table."`
	trustFlags
}

// comparison is what compare prints.
type comparison struct {
	A           string          `json:"a"`
	B           string          `json:"b"`
	Differences []string        `json:"environment_differences"`
	Figures     []figures.Delta `json:"figures"`
}

func (c *compareCmd) Run(e *env, g *globals) error {
	pol, err := c.policy()
	if err != nil {
		return err
	}
	a, err := readCardFile(e, g, c.A, c.trustFlags, pol)
	if err != nil {
		return err
	}
	b, err := readCardFile(e, g, c.B, c.trustFlags, pol)
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

// writeComparison prints the deltas as a table in human units.
func writeComparison(e *env, c comparison) error {
	for _, d := range c.Differences {
		fmt.Fprintf(e.stdout, "environment differs: %s\n", d)
	}
	tw := tabwriter.NewWriter(e.stdout, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "FIGURE\tA\tB\tDELTA")
	for _, f := range c.Figures {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", f.Name, value(f.A, f.Unit), value(f.B, f.Unit), delta(f))
	}
	return tw.Flush()
}

// value is a figure in its unit, or "-" when the report lacks it.
func value(p *float64, unit string) string {
	if p == nil {
		return "-"
	}
	return human(*p, unit)
}

// delta is B-A in the figure's unit and, where A is not zero, relative
// to A: "+80.0 GB/s (+10.0%)"; "-" when either report lacks the figure.
func delta(f figures.Delta) string {
	if f.A == nil || f.B == nil {
		return "-"
	}
	d := *f.B - *f.A
	if d == 0 {
		return "0 (" + pct(f.Relative) + ")"
	}
	out := difference(d, f.Unit)
	if r := pct(f.Relative); r != "-" {
		out += " (" + r + ")"
	}
	return out
}

// difference writes a signed difference d in human units.
func difference(d float64, unit string) string {
	switch unit {
	case "bytes/s", "ops/s", "bytes", "s":
		sign := "+"
		if d < 0 {
			sign = "-"
		}
		return sign + human(math.Abs(d), unit)
	case "ratio":
		return fmt.Sprintf("%+.4f ratio", d)
	}
	return fmt.Sprintf("%+.4g %s", d, unit)
}

func pct(p *float64) string {
	if p == nil || math.IsInf(*p, 0) || math.IsNaN(*p) {
		return "-"
	}
	return fmt.Sprintf("%+.1f%%", *p*100)
}

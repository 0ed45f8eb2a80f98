package main

import (
	"fmt"
	"io"

	"github.com/everycycle/appraise/schema"
)

// disagreement says that a card's consistency check does not agree, in
// the words of the browser page's consistency table (web/src/render.js):
// the rule, "DISAGREES" (and "(re-measured)" when the probes behind it
// ran again), both figures with their values, the ratio and the accepted
// band.
func disagreement(c schema.ConsistencyCheck) string {
	verdict := "DISAGREES"
	if c.Remeasured {
		verdict += " (re-measured)"
	}
	return fmt.Sprintf("consistency rule %s %s: %s %s ÷ %s %s, ratio %.3f, accepted band %.3f – %.3f",
		c.Rule, verdict, c.Figure, human(c.Value, c.Unit), c.OtherFigure, human(c.OtherValue, c.Unit), c.Ratio, c.MinRatio, c.MaxRatio)
}

// warnDisagreements writes one line per check in cs, each prefix then
// disagreement.
func warnDisagreements(w io.Writer, prefix string, cs []schema.ConsistencyCheck) {
	for _, c := range cs {
		fmt.Fprintf(w, "%s%s\n", prefix, disagreement(c))
	}
}

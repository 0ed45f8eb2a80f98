package figures

import (
	"cmp"
	"fmt"
	"math"
	"strings"

	"github.com/everycycle/appraise/schema"
)

// Delta compares one figure between a baseline A and a report B.
type Delta struct {
	Name string `json:"name"`
	Unit string `json:"unit"`
	// A and B are the medians; nil when the report lacks the figure.
	A *float64 `json:"a"`
	B *float64 `json:"b"`
	// Relative is (B-A)/A; nil when either is missing or A is zero.
	Relative *float64 `json:"relative"`
}

// Compare returns a Delta for every figure present in a or b, in the
// order of a, then figures only b has.
func Compare(a, b schema.CapabilityVector) []Delta {
	fa, fb := List(a), List(b)
	byName := make(map[string]Figure, len(fb))
	for _, f := range fb {
		byName[f.Name] = f
	}
	var out []Delta
	seen := map[string]bool{}
	for _, f := range fa {
		d := Delta{Name: f.Name, Unit: f.Unit, A: ptr(f.Median)}
		if g, ok := byName[f.Name]; ok {
			d.B = ptr(g.Median)
			if f.Median != 0 {
				d.Relative = ptr((g.Median - f.Median) / f.Median)
			}
		}
		seen[f.Name] = true
		out = append(out, d)
	}
	for _, g := range fb {
		if !seen[g.Name] {
			out = append(out, Delta{Name: g.Name, Unit: g.Unit, B: ptr(g.Median)})
		}
	}
	return out
}

// ambientToleranceC is the largest ambient difference, in °C, of comparable reports.
const ambientToleranceC = 5

// EnvironmentDifferences lists, in words, the differences that make two
// environments' figures not directly comparable.
func EnvironmentDifferences(a, b schema.ProbeEnvironment) []string {
	var out []string
	same := func(what, x, y string) {
		if x != y {
			out = append(out, fmt.Sprintf("%s: %q vs %q", what, x, y))
		}
	}
	same("driver version", a.DriverVersion, b.DriverVersion)
	same("backend", a.Backend, b.Backend)
	same("probe-suite version", a.ProbeSuiteVersion, b.ProbeSuiteVersion)
	same("mode", a.Mode, b.Mode)
	// Writers older than the field ran every device alone, in turn.
	same("schedule", cmp.Or(a.Schedule, "serial"), cmp.Or(b.Schedule, "serial"))
	if a.AmbientC != nil && b.AmbientC != nil && math.Abs(*a.AmbientC-*b.AmbientC) > ambientToleranceC {
		out = append(out, fmt.Sprintf("ambient: %.1f °C vs %.1f °C (more than %d °C apart)", *a.AmbientC, *b.AmbientC, ambientToleranceC))
	}
	// A shared device's figures compare with no other card's.
	if sa, sb := SharedWith(a.SharedUse), SharedWith(b.SharedUse); sa != "" || sb != "" {
		out = append(out, fmt.Sprintf("shared use: %s vs %s", cmp.Or(sa, "alone"), cmp.Or(sb, "alone")))
	}
	return out
}

// SharedWith says who else used the device, e.g. "shared with pid 4242
// python3 (40.0 GiB, nvml)", or "" when no one was found.
func SharedWith(s *schema.SharedUse) string {
	if s == nil || !s.OthersFound {
		return ""
	}
	if len(s.Processes) == 0 {
		return "shared: the device was busy before probing, with no process appraise could see"
	}
	who := make([]string, len(s.Processes))
	for i, p := range s.Processes {
		name := cmp.Or(p.Name, "(not visible)")
		if m := p.UsedMemoryBytes; m != nil {
			who[i] = fmt.Sprintf("pid %d %s (%.1f GiB, %s)", p.PID, name, float64(*m)/(1<<30), p.Source)
		} else {
			who[i] = fmt.Sprintf("pid %d %s (%s)", p.PID, name, p.Source)
		}
	}
	return "shared with " + strings.Join(who, "; ")
}

func ptr(v float64) *float64 { return &v }

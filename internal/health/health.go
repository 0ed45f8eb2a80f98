// Package health judges a quick re-measurement of a device against its
// signed card by internal consistency: bandwidth and compute that dropped
// together make a slower device, one that dropped relative to the other a
// degraded one. Start with Judge.
package health

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/everycycle/appraise/internal/render/figures"
	"github.com/everycycle/appraise/schema"
)

// Status is a check's outcome, numbered as Nagios-style checks exit.
type Status int

const (
	OK      Status = 0 // every figure compared is within its band
	Failing Status = 1 // degraded, slower, lost host link, or memory errors
	Unknown Status = 2 // nothing comparable was measured
)

// String returns "ok", "failing" or "unknown".
func (s Status) String() string {
	switch s {
	case OK:
		return "ok"
	case Failing:
		return "failing"
	}
	return "unknown"
}

// MarshalText returns s.String().
func (s Status) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// Finding kinds.
const (
	KindDegraded = "degraded" // compute low relative to bandwidth, or bandwidth relative to compute
	KindSlower   = "slower"   // bandwidth and compute dropped together
	KindHostLink = "host-link"
	KindMemtest  = "memtest"
	KindMissing  = "not-compared" // a figure the card has that was not measured now
	KindWithin   = "within"       // bandwidth and compute compared, each within its band
)

// Finding is one line of a check's verdict.
type Finding struct {
	Status Status `json:"status"`
	Kind   string `json:"kind"`
	Figure string `json:"figure,omitempty"` // "" for a summary
	// Ratio is now ÷ card, or for a relative finding that ÷ the other
	// kind's ratio; 0 where none applies.
	Ratio   float64 `json:"ratio,omitempty"`
	Message string  `json:"message"`
}

// Verdict is the whole judgement of one device.
type Verdict struct {
	Status Status `json:"status"`
	// BandwidthRatio and ComputeRatio are the medians of now ÷ card.
	BandwidthRatio float64   `json:"bandwidth_ratio,omitempty"`
	ComputeRatio   float64   `json:"compute_ratio,omitempty"`
	Bands          Bands     `json:"bands"`
	Findings       []Finding `json:"findings"`
}

// Bands are the floors a check holds ratios of now ÷ card to; a rise is
// never a finding.
type Bands struct {
	Relative float64 `json:"relative"`  // compute ÷ bandwidth ratio, and its inverse
	Slower   float64 `json:"slower"`    // bandwidth and compute ratios together
	HostLink float64 `json:"host_link"` // each host-link direction
}

// Bands of a GPU and of a software adapter, which shares the host's cores
// and so is held only against gross failures.
var (
	GPUBands      = Bands{Relative: 0.90, Slower: 0.90, HostLink: 0.75}
	SoftwareBands = Bands{Relative: 1.0 / 3, Slower: 0.25, HostLink: 0.25}
)

// BandsFor returns the bands for a card's device.
func BandsFor(id schema.DeviceIdentity) Bands {
	if id.Software {
		return SoftwareBands
	}
	return GPUBands
}

type compared struct {
	name      string
	card, now float64
	ratio     float64
}

// Judge returns the verdict on now against the card: Failing when any
// finding fails, else Unknown when no bandwidth or no compute figure could
// be compared, else OK. The card's figures not measured now are listed.
func Judge(card, now schema.CapabilityVector, b Bands) Verdict {
	cf, nf := byName(figures.List(card)), byName(figures.List(now))
	v := Verdict{Bands: b}
	var bw, comp []compared
	for _, name := range sortedKeys(cf) {
		c := cf[name]
		n, ok := nf[name]
		kind := kindOf(name)
		if kind == "" {
			continue
		}
		if !ok || c.Median <= 0 || n.Median <= 0 {
			if kind == "bandwidth" || kind == "compute" || kind == "host-link" {
				v.Findings = append(v.Findings, Finding{Status: OK, Kind: KindMissing, Figure: name, Message: fmt.Sprintf("%s: not re-measured, not compared", name)})
			}
			continue
		}
		x := compared{name: name, card: c.Median, now: n.Median, ratio: n.Median / c.Median}
		switch kind {
		case "bandwidth":
			bw = append(bw, x)
		case "compute":
			comp = append(comp, x)
		case "host-link":
			if x.ratio < b.HostLink {
				v.Findings = append(v.Findings, Finding{Status: Failing, Kind: KindHostLink, Figure: name, Ratio: x.ratio,
					Message: fmt.Sprintf("%s: host link at %s of the card's (floor %s): a lost PCIe generation or lanes, or a busy host", name, pct(x.ratio), pct(b.HostLink))})
			}
		}
	}
	if m := now.Memory; m != nil && m.Integrity != nil && m.Integrity.Errors > 0 {
		v.Findings = append(v.Findings, Finding{Status: Failing, Kind: KindMemtest, Figure: "memory.integrity.errors",
			Message: fmt.Sprintf("memory.integrity.errors: %d wrong words in %d bytes tested: the memory is failing", m.Integrity.Errors, m.Integrity.BytesTested)})
	}
	v.BandwidthRatio, v.ComputeRatio = median(bw), median(comp)
	switch {
	case len(bw) == 0:
		v.Findings = append(v.Findings, Finding{Status: Unknown, Kind: KindMissing, Message: "no bandwidth figure of the card was re-measured: nothing to hold compute against"})
	case len(comp) == 0:
		v.Findings = append(v.Findings, Finding{Status: Unknown, Kind: KindMissing, Message: "no compute figure of the card was re-measured: nothing to hold bandwidth against"})
	default:
		rel := relative(bw, comp, v.BandwidthRatio, v.ComputeRatio, b)
		if len(rel) == 0 {
			// Said even when something else fails.
			rel = []Finding{{Status: OK, Kind: KindWithin,
				Message: fmt.Sprintf("bandwidth at %s and compute at %s of the card's, each within its band (relative %s, slower %s)", pct(v.BandwidthRatio), pct(v.ComputeRatio), pct(b.Relative), pct(b.Slower))}}
		}
		v.Findings = append(v.Findings, rel...)
	}
	v.Status = OK
	for _, f := range v.Findings {
		switch {
		case f.Status == Failing:
			v.Status = Failing
		case f.Status == Unknown && v.Status == OK:
			v.Status = Unknown
		}
	}
	return v
}

// relative returns the degraded and slower findings.
func relative(bw, comp []compared, bwr, cr float64, b Bands) []Finding {
	var out []Finding
	degraded := false
	for _, c := range comp {
		if rel := c.ratio / bwr; rel < b.Relative {
			degraded = true
			out = append(out, Finding{Status: Failing, Kind: KindDegraded, Figure: c.name, Ratio: rel,
				Message: fmt.Sprintf("%s: compute at %s of the card's while bandwidth is at %s (%s relative, floor %s): degraded", c.name, pct(c.ratio), pct(bwr), pct(rel), pct(b.Relative))})
		}
	}
	if rel := bwr / cr; rel < b.Relative {
		degraded = true
		out = append(out, Finding{Status: Failing, Kind: KindDegraded, Figure: "memory.bandwidth", Ratio: rel,
			Message: fmt.Sprintf("memory.bandwidth: bandwidth at %s of the card's while compute is at %s (%s relative, floor %s): degraded memory", pct(bwr), pct(cr), pct(rel), pct(b.Relative))})
	}
	if !degraded && bwr < b.Slower && cr < b.Slower {
		out = append(out, Finding{Status: Failing, Kind: KindSlower, Ratio: math.Max(bwr, cr),
			Message: fmt.Sprintf("bandwidth at %s and compute at %s of the card's (floor %s): a slower device than the card says (clocks, power limit, cooling); re-appraise it", pct(bwr), pct(cr), pct(b.Slower))})
	}
	return out
}

// kindOf returns "bandwidth", "compute", "host-link" or "" for a figure.
func kindOf(name string) string {
	switch {
	case strings.HasPrefix(name, "memory.bandwidth."):
		return "bandwidth"
	case strings.HasPrefix(name, "precision."):
		return "compute"
	case name == "interconnect.host_to_device" || name == "interconnect.device_to_host":
		return "host-link"
	}
	return ""
}

func byName(fs []figures.Figure) map[string]figures.Figure {
	m := make(map[string]figures.Figure, len(fs))
	for _, f := range fs {
		m[f.Name] = f
	}
	return m
}

func sortedKeys(m map[string]figures.Figure) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return ks
}

func median(xs []compared) float64 {
	if len(xs) == 0 {
		return 0
	}
	r := make([]float64, len(xs))
	for i, x := range xs {
		r[i] = x.ratio
	}
	slices.Sort(r)
	if n := len(r); n%2 == 1 {
		return r[n/2]
	} else {
		return (r[n/2-1] + r[n/2]) / 2
	}
}

func pct(r float64) string { return fmt.Sprintf("%.0f%%", r*100) }

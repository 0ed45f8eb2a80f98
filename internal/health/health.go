// Package health judges a quick re-measurement of a device against the
// signed card that describes it, by the seed's rule of internal
// consistency (appraisal-design.md, "Internal consistency in place of
// cohort comparison"): bandwidth and compute that dropped together are a
// slower card; compute that dropped relative to bandwidth (or bandwidth
// relative to compute) is a degraded one. It compares like-named figures
// (internal/figures) and nothing else: no model table, no cohort.
//
// Start with Judge.
package health

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/everycycle/appraise/internal/render/figures"
	"github.com/everycycle/appraise/schema"
)

// Status is a check's outcome, as Nagios-style health checks exit (NHC,
// Slurm's HealthCheckProgram, node-problem-detector custom plugins).
type Status int

const (
	// OK: every figure compared is within its band.
	OK Status = 0
	// Failing: the device is degraded, slower than its card, has lost
	// host-link bandwidth, or its memory returned wrong words.
	Failing Status = 1
	// Unknown: nothing comparable was measured, so nothing can be said.
	Unknown Status = 2
)

// String names s as the one-line findings and --json do.
func (s Status) String() string {
	switch s {
	case OK:
		return "ok"
	case Failing:
		return "failing"
	}
	return "unknown"
}

// MarshalText writes s by name in JSON.
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
	// Figure is the figure the finding is about, "" for a summary.
	Figure string `json:"figure,omitempty"`
	// Ratio is the figure now over the card's (for a relative finding,
	// over the bandwidth ratio); 0 where none applies.
	Ratio   float64 `json:"ratio,omitempty"`
	Message string  `json:"message"`
}

// Verdict is the whole judgement of one device.
type Verdict struct {
	Status Status `json:"status"`
	// BandwidthRatio is the median over the re-measured bandwidth figures
	// of now / card; ComputeRatio the median over the compute figures.
	BandwidthRatio float64   `json:"bandwidth_ratio,omitempty"`
	ComputeRatio   float64   `json:"compute_ratio,omitempty"`
	Bands          Bands     `json:"bands"`
	Findings       []Finding `json:"findings"`
}

// Bands are the least ratios a check accepts. Each is a floor on now /
// card (or on one ratio over another); rising figures are never a
// finding.
type Bands struct {
	// Relative is the floor on a compute ratio over the bandwidth ratio
	// (and on the bandwidth ratio over the compute ratio): below it the
	// device is degraded.
	Relative float64 `json:"relative"`
	// Slower is the floor on the bandwidth and compute ratios together:
	// below it the device is slower than its card says.
	Slower float64 `json:"slower"`
	// HostLink is the floor on each host-link direction's ratio.
	HostLink float64 `json:"host_link"`
}

// Bands of a GPU and of a software adapter.
//
// A GPU: the quick probes repeat within a few per cent on an idle card
// (the boost clock moves a few per cent between moments, the band the
// appraisal's own consistency rules give the same kernel run twice, 10 %);
// a check compares two such moments, so 10 % below the card is the floor
// for both the relative and the proportional rule. A host link is a
// transfer through host memory whose speed also depends on the NUMA node
// and what else the host copies; a lost PCIe generation or half the lanes
// halves it, so 25 % below the card catches those and not the noise.
//
// A software adapter (lavapipe) is the host's own cores and memory, shared
// with every other process: a card measured on an idle host and a check
// run on a busy one (a CI machine, a node running jobs) can differ by
// several times, and load hits the ALU kernels (cores) and the stream
// kernels (memory channels) unevenly. Two checks in a row on a healthy
// device must never say degraded, so its floors are wide: compute may
// fall to a third of bandwidth's ratio (or bandwidth to a third of
// compute's), everything together to a quarter, the host link (a memcpy
// in host memory) to a quarter. What is left is the gross failures: a
// kernel that is several times slower than everything else.
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

// compared is a figure present, with a positive median, in both vectors.
type compared struct {
	name      string
	card, now float64
	ratio     float64
}

// Judge compares the figures measured now with the card's and returns the
// verdict: Failing when any finding fails, else Unknown when no bandwidth
// or no compute figure could be compared, else OK. Only figures measured
// now are judged; the card's other figures are listed as not compared when
// they are the kind a check measures (bandwidth, compute, host link).
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
			// Said whatever else fails (a slow host link, memtest
			// errors): the reader of a failing check learns that
			// bandwidth and compute were compared and held.
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

// relative applies the seed's rule: a compute figure low relative to
// bandwidth, or bandwidth low relative to compute, is a degraded device;
// both low together is a slower one.
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

// kindOf sorts a figure into what a check compares: "bandwidth"
// (memory.bandwidth.*), "compute" (precision.*), "host-link", or "".
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

// median of the ratios; 0 for none.
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

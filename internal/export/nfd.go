package export

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"time"

	"github.com/everycycle/appraise/schema"
)

// LabelPrefix is the namespace of every label NFD publishes from our
// feature file. NFD's master accepts any namespace but kubernetes.io's.
const LabelPrefix = "appraise.everycycle.dev/"

// maxFeatureFile is the largest feature file NFD's local source reads
// (its MaxFeatureFileSize): it skips a larger one whole.
const maxFeatureFile = 65536

// ErrStale is returned for a card older than the export's MaxAge: its
// labels would expire before they were written.
var ErrStale = errors.New("card is older than the maximum age")

// labelNameRe is the Kubernetes rule for a label's name (the part after
// the prefix's slash) and for a non-empty value; both are at most 63
// characters.
var labelNameRe = regexp.MustCompile(`^[A-Za-z0-9]([-_.A-Za-z0-9]*[A-Za-z0-9])?$`)

// NFDOptions says when the export happens and how long its labels live.
type NFDOptions struct {
	// Now is the time of the export: card ages count to it.
	Now time.Time
	// MaxAge is how long a card's figures stand: the labels expire at
	// the oldest card's probed time plus MaxAge, and a card already
	// older is ErrStale.
	MaxAge time.Duration
}

// Label is one node label.
type Label struct {
	// Name is the label's name without LabelPrefix, e.g. "dev0.read-gbps".
	Name string
	// Value is a whole number in the unit the name says.
	Value string
}

// NFD returns the feature file for cards, the output of Devices: an
// expiry directive, then one label per line, sorted. See NFDLabels for
// the scheme.
func NFD(cards []Card, opt NFDOptions) ([]byte, error) {
	labels, expiry, err := NFDLabels(cards, opt)
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, "# Written by appraise export nfd from %d verified card(s); regenerated, do not edit.\n", len(cards))
	fmt.Fprintf(&b, "# +expiry-time=%s\n", expiry.UTC().Format(time.RFC3339))
	for _, l := range labels {
		fmt.Fprintf(&b, "%s%s=%s\n", LabelPrefix, l.Name, l.Value)
	}
	if b.Len() > maxFeatureFile {
		return nil, fmt.Errorf("export: feature file of %d bytes: NFD skips one over %d", b.Len(), maxFeatureFile)
	}
	return b.Bytes(), nil
}

// NFDLabels returns the labels for cards, sorted by name, and when they
// expire. Every value is a whole number, rounded down, so a label never
// claims more than was measured. Per device n (in the order of cards):
//
//	devN.<precision>-vector-tops, devN.<precision>-matrix-tops
//	                            the fastest entry of that precision, 10^12 ops/s
//	devN.usable-gib             memory that could be allocated, GiB (2^30 bytes)
//	devN.read-gbps              device-memory read bandwidth, GB/s (10^9 bytes/s)
//	devN.host-to-device-gbps, devN.device-to-host-gbps   the host link, GB/s
//	devN.age-days               days from the card's appraisal to the export
//	devN.software               1 for a software adapter's card, else 0
//
// Node-wide: cards (how many verified cards, one per device),
// software-cards, <figure>-min and <figure>-sum for the throughput,
// usable-gib and read-gbps figures, <link>-min for the host links, and
// age-days-max. A node-wide label is written only when every device has
// the figure: a minimum over some of them would claim it of all.
// <precision> is the input type, "x" and the second input's type when
// they differ, "-" and the accumulator's type when it is not the
// input's, "-" and the output type when it is not the accumulator's, and
// "." and the block scaling, as in "fp16-fp32" or "int8-int32".
func NFDLabels(cards []Card, opt NFDOptions) ([]Label, time.Time, error) {
	if len(cards) == 0 {
		return nil, time.Time{}, errors.New("export: no cards")
	}
	if opt.MaxAge <= 0 {
		return nil, time.Time{}, fmt.Errorf("export: maximum age %s is not positive", opt.MaxAge)
	}
	var oldest time.Time
	perDevice := make([]map[string]float64, len(cards))
	var labels []Label
	software := 0
	for i, c := range cards {
		at, err := c.ProbedAt()
		if err != nil {
			return nil, time.Time{}, err
		}
		age := max(opt.Now.Sub(at), 0)
		if age > opt.MaxAge {
			return nil, time.Time{}, fmt.Errorf("export: %s: %w: probed %s, %s before the export (maximum %s)",
				c.Path, ErrStale, c.Payload.ProbedAt, age.Round(time.Second), opt.MaxAge)
		}
		if i == 0 || at.Before(oldest) {
			oldest = at
		}
		figs := deviceFigures(c.Payload.Capability)
		figs["age-days"] = math.Floor(age.Hours() / 24)
		perDevice[i] = figs
		soft := 0
		if c.Payload.Capability.Identity.Software {
			soft = 1
			software++
		}
		labels = append(labels, Label{fmt.Sprintf("dev%d.software", i), strconv.Itoa(soft)})
		for name, v := range figs {
			labels = append(labels, Label{fmt.Sprintf("dev%d.%s", i, name), intValue(v)})
		}
	}
	labels = append(labels, nodeLabels(perDevice)...)
	labels = append(labels, Label{"cards", strconv.Itoa(len(cards))}, Label{"software-cards", strconv.Itoa(software)})
	slices.SortFunc(labels, func(a, b Label) int { return cmp.Compare(a.Name, b.Name) })
	for _, l := range labels {
		if err := checkLabel(l); err != nil {
			return nil, time.Time{}, err
		}
	}
	return labels, oldest.Add(opt.MaxAge), nil
}

// deviceFigures are one card's labelled figures in the labels' units,
// before rounding.
func deviceFigures(v schema.CapabilityVector) map[string]float64 {
	figs := map[string]float64{}
	for _, p := range v.Precisions {
		kind := "vector"
		if p.MatrixEngine {
			kind = "matrix"
		}
		name := precisionKey(p) + "-" + kind + "-tops"
		figs[name] = max(figs[name], p.OpsPerS.Median/1e12)
	}
	if m := v.Memory; m != nil {
		if m.UsableBytes != nil {
			figs["usable-gib"] = float64(*m.UsableBytes) / (1 << 30)
		}
		for _, b := range m.Bandwidth {
			if b.Kernel == "read" {
				figs["read-gbps"] = b.BytesPerS.Median / 1e9
			}
		}
	}
	if ic := v.Interconnect; ic != nil {
		if t := ic.HostToDevice; t != nil {
			figs["host-to-device-gbps"] = t.BytesPerS.Median / 1e9
		}
		if t := ic.DeviceToHost; t != nil {
			figs["device-to-host-gbps"] = t.BytesPerS.Median / 1e9
		}
	}
	return figs
}

// precisionKey names a precision in a label (see NFDLabels).
func precisionKey(p schema.PrecisionThroughput) string {
	k := p.InputType
	if p.InputTypeB != "" && p.InputTypeB != p.InputType {
		k += "x" + p.InputTypeB
	}
	if p.AccumulatorType != p.InputType {
		k += "-" + p.AccumulatorType
	}
	if p.OutputType != "" && p.OutputType != p.AccumulatorType {
		k += "-" + p.OutputType
	}
	if p.Scaling != "" {
		k += "." + p.Scaling
	}
	return k
}

// nodeLabels are the node-wide labels over every device's figures:
// min and sum of what adds up across devices (throughput, memory,
// bandwidth), min of the host links (each was measured with the other
// devices idle, so their sum is no aggregate), max of the age.
func nodeLabels(perDevice []map[string]float64) []Label {
	var out []Label
	for name := range perDevice[0] {
		lo, sum, hi, all := math.Inf(1), 0.0, math.Inf(-1), true
		for _, figs := range perDevice {
			v, ok := figs[name]
			if !ok {
				all = false
				break
			}
			lo, sum, hi = min(lo, v), sum+v, max(hi, v)
		}
		if !all {
			continue
		}
		switch name {
		case "age-days":
			out = append(out, Label{name + "-max", intValue(hi)})
		case "host-to-device-gbps", "device-to-host-gbps":
			out = append(out, Label{name + "-min", intValue(lo)})
		default:
			out = append(out, Label{name + "-min", intValue(lo)}, Label{name + "-sum", intValue(sum)})
		}
	}
	return out
}

// intValue rounds a figure down to a whole number.
func intValue(v float64) string {
	return strconv.FormatFloat(math.Floor(v), 'f', 0, 64)
}

// checkLabel holds a label to the Kubernetes rules (NFD's worker drops a
// label that breaks them, with a log line nobody reads).
func checkLabel(l Label) error {
	if len(l.Name) > 63 || !labelNameRe.MatchString(l.Name) {
		return fmt.Errorf("export: label name %q breaks the Kubernetes rules (at most 63 of A-Z a-z 0-9 - _ ., alphanumeric at both ends)", l.Name)
	}
	if len(l.Value) > 63 || !labelNameRe.MatchString(l.Value) {
		return fmt.Errorf("export: label %s: value %q breaks the Kubernetes rules", l.Name, l.Value)
	}
	return nil
}

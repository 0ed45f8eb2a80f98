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

// LabelPrefix is the namespace of every label.
const LabelPrefix = "appraise.everycycle.dev/"

// maxFeatureFile is NFD's MaxFeatureFileSize; it skips a larger file whole.
const maxFeatureFile = 65536

// ErrStale is returned for a card older than NFDOptions.MaxAge.
var ErrStale = errors.New("card is older than the maximum age")

// labelNameRe is the Kubernetes rule for a label's name after the prefix
// and for a non-empty value, besides a limit of 63 bytes.
var labelNameRe = regexp.MustCompile(`^[A-Za-z0-9]([-_.A-Za-z0-9]*[A-Za-z0-9])?$`)

// NFDOptions says when the export happens and how long its labels live:
// they expire MaxAge after the oldest card's probed time.
type NFDOptions struct {
	Now    time.Time
	MaxAge time.Duration
}

// Label is one node label.
type Label struct {
	Name  string // without LabelPrefix, e.g. "dev0.read-gbps"
	Value string // a whole number in the unit the name says
}

// NFD returns the feature file for the output of Devices: an expiry
// directive, then the labels of NFDLabels.
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
// expire: devN.<figure> per device n of cards, and node-wide <figure>-min,
// -sum or -max for figures every device has. Values are rounded down.
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

// deviceFigures returns one card's figures in the labels' units.
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

// precisionKey names a precision by its types and scaling, e.g. "fp16-fp32".
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

// nodeLabels returns min and sum over the devices, min only for host links
// (each measured alone) and max for the age.
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

// checkLabel holds l to the Kubernetes label rules; NFD drops a label that breaks them.
func checkLabel(l Label) error {
	if len(l.Name) > 63 || !labelNameRe.MatchString(l.Name) {
		return fmt.Errorf("export: label name %q breaks the Kubernetes rules (at most 63 of A-Z a-z 0-9 - _ ., alphanumeric at both ends)", l.Name)
	}
	if len(l.Value) > 63 || !labelNameRe.MatchString(l.Value) {
		return fmt.Errorf("export: label %s: value %q breaks the Kubernetes rules", l.Name, l.Value)
	}
	return nil
}

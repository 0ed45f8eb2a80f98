package export

import (
	"bytes"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/everycycle/appraise/schema"
)

// labelMap is labels by name.
func labelMap(ls []Label) map[string]string {
	m := map[string]string{}
	for _, l := range ls {
		m[l.Name] = l.Value
	}
	return m
}

func floorStr(v float64) string { return strconv.FormatFloat(math.Floor(v), 'f', 0, 64) }

func TestNFDLabelsTwoDevices(t *testing.T) {
	cards := []Card{exampleCard(t, h200x2Card0), exampleCard(t, h200x2Card1)}
	now := probedAt(t, cards[1]).Add(50 * time.Hour)
	ls, expiry, err := NFDLabels(cards, NFDOptions{Now: now, MaxAge: 30 * 24 * time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	m := labelMap(ls)
	c0, c1 := cards[0].Payload.Capability, cards[1].Payload.Capability
	read := func(v schema.CapabilityVector) float64 {
		for _, b := range v.Memory.Bandwidth {
			if b.Kernel == "read" {
				return b.BytesPerS.Median / 1e9
			}
		}
		t.Fatal("no read bandwidth")
		return 0
	}
	gib := func(v schema.CapabilityVector) float64 { return float64(*v.Memory.UsableBytes) / (1 << 30) }
	fp32 := func(v schema.CapabilityVector) float64 {
		for _, p := range v.Precisions {
			if p.Operation == "fma" && p.InputType == "fp32" {
				return p.OpsPerS.Median / 1e12
			}
		}
		t.Fatal("no fp32")
		return 0
	}
	want := map[string]string{
		"cards":                       "2",
		"software-cards":              "0",
		"dev0.software":               "0",
		"dev0.usable-gib":             floorStr(gib(c0)),
		"dev1.read-gbps":              floorStr(read(c1)),
		"read-gbps-min":               floorStr(min(read(c0), read(c1))),
		"read-gbps-sum":               floorStr(read(c0) + read(c1)),
		"usable-gib-sum":              floorStr(gib(c0) + gib(c1)),
		"dev1.fp32-vector-tops":       floorStr(fp32(c1)),
		"fp32-vector-tops-sum":        floorStr(fp32(c0) + fp32(c1)),
		"fp32-vector-tops-min":        floorStr(min(fp32(c0), fp32(c1))),
		"dev0.int8-int32-vector-tops": floorStr(maxOps(c0, "int8", false) / 1e12),
		"host-to-device-gbps-min":     floorStr(min(c0.Interconnect.HostToDevice.BytesPerS.Median, c1.Interconnect.HostToDevice.BytesPerS.Median) / 1e9),
		"dev0.age-days":               floorStr(now.Sub(probedAt(t, cards[0])).Hours() / 24),
		"age-days-max":                floorStr(now.Sub(probedAt(t, cards[0])).Hours() / 24),
	}
	for k, v := range want {
		if m[k] != v {
			t.Errorf("%s = %q, want %q", k, m[k], v)
		}
	}
	for _, k := range []string{"host-to-device-gbps-sum", "age-days-min", "dev2.software"} {
		if _, ok := m[k]; ok {
			t.Errorf("label %s should not be written", k)
		}
	}
	oldest := probedAt(t, cards[0])
	if o := probedAt(t, cards[1]); o.Before(oldest) {
		oldest = o
	}
	if !expiry.Equal(oldest.Add(30 * 24 * time.Hour)) {
		t.Errorf("expiry %s, want oldest card + 30 days", expiry)
	}
	if m["dev0.usable-gib"] == "0" || m["dev0.fp32-vector-tops"] == "0" {
		t.Error("an H200's figures rounded to 0: wrong unit")
	}
}

// maxOps is the fastest entry of an input type, matrix or vector.
func maxOps(v schema.CapabilityVector, input string, matrix bool) float64 {
	best := 0.0
	for _, p := range v.Precisions {
		if p.InputType == input && p.MatrixEngine == matrix {
			best = max(best, p.OpsPerS.Median)
		}
	}
	return best
}

func TestNFDLabelsMatrixPrecisions(t *testing.T) {
	c := exampleCard(t, h200Card)
	m := labelMap(mustLabels(t, []Card{c}, probedAt(t, c)))
	v := c.Payload.Capability
	var fp16acc16, fp16acc32 float64
	for _, p := range v.Precisions {
		if p.MatrixEngine && p.InputType == "fp16" && p.AccumulatorType == "fp16" {
			fp16acc16 = max(fp16acc16, p.OpsPerS.Median)
		}
		if p.MatrixEngine && p.InputType == "fp16" && p.AccumulatorType == "fp32" {
			fp16acc32 = max(fp16acc32, p.OpsPerS.Median)
		}
	}
	if m["dev0.fp16-matrix-tops"] != floorStr(fp16acc16/1e12) || m["fp16-matrix-tops-min"] != floorStr(fp16acc16/1e12) {
		t.Errorf("fp16 matrix: %q / %q, want %s", m["dev0.fp16-matrix-tops"], m["fp16-matrix-tops-min"], floorStr(fp16acc16/1e12))
	}
	if m["dev0.fp16-fp32-matrix-tops"] != floorStr(fp16acc32/1e12) {
		t.Errorf("fp16-fp32 matrix: %q, want %s", m["dev0.fp16-fp32-matrix-tops"], floorStr(fp16acc32/1e12))
	}
	if m["dev0.fp16-vector-tops"] == "" || m["dev0.bf16-fp32-matrix-tops"] == "" {
		t.Errorf("missing fp16 vector or bf16 matrix label: %v", m)
	}
}

func mustLabels(t *testing.T, cards []Card, now time.Time) []Label {
	t.Helper()
	ls, _, err := NFDLabels(cards, NFDOptions{Now: now, MaxAge: 24 * time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	return ls
}

// TestNFDLabelsKeepKubernetesRules holds every label of every example
// card (and of all of them as one node) to the Kubernetes rules, and no
// value names the product.
func TestNFDLabelsKeepKubernetesRules(t *testing.T) {
	var all []Card
	for _, p := range allExamples(t) {
		all = append(all, exampleCard(t, p))
	}
	devs, err := Devices(all, true)
	if err != nil {
		t.Fatal(err)
	}
	sets := [][]Card{devs}
	for _, c := range all {
		sets = append(sets, []Card{c})
	}
	for _, cards := range sets {
		now := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
		file, err := NFD(cards, NFDOptions{Now: now, MaxAge: 365 * 24 * time.Hour})
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(strings.TrimSuffix(string(file), "\n"), "\n")
		if !strings.HasPrefix(lines[1], "# +expiry-time=") {
			t.Fatalf("second line %q, want the expiry directive", lines[1])
		}
		if _, err := time.Parse(time.RFC3339, strings.TrimPrefix(lines[1], "# +expiry-time=")); err != nil {
			t.Fatal(err)
		}
		for _, line := range lines[2:] {
			name, value, ok := strings.Cut(line, "=")
			if !ok || !strings.HasPrefix(name, LabelPrefix) {
				t.Fatalf("line %q: want %sNAME=VALUE", line, LabelPrefix)
			}
			n := strings.TrimPrefix(name, LabelPrefix)
			if len(n) > 63 || !labelNameRe.MatchString(n) || len(value) > 63 {
				t.Errorf("label %q breaks the rules", line)
			}
			if _, err := strconv.ParseUint(value, 10, 64); err != nil {
				t.Errorf("label %q: value is not a whole number", line)
			}
			for _, c := range cards {
				for _, word := range strings.FieldsFunc(strings.ToLower(c.Payload.Capability.Identity.Name), notAlnum) {
					if len(word) >= 4 && strings.Contains(strings.ToLower(line), word) {
						t.Errorf("label %q names the product (%q)", line, word)
					}
				}
			}
		}
	}
}

func notAlnum(r rune) bool { return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9') }

func TestNFDStaleAndFutureCards(t *testing.T) {
	c := exampleCard(t, h200Card)
	at := probedAt(t, c)
	if _, _, err := NFDLabels([]Card{c}, NFDOptions{Now: at.Add(31 * 24 * time.Hour), MaxAge: 30 * 24 * time.Hour}); !errorsIs(err, ErrStale) {
		t.Fatalf("err = %v, want ErrStale", err)
	}
	// A card from a host whose clock runs ahead: age 0, not negative.
	m := labelMap(mustLabels(t, []Card{c}, at.Add(-time.Hour)))
	if m["dev0.age-days"] != "0" {
		t.Errorf("age-days %q, want 0", m["dev0.age-days"])
	}
	if _, _, err := NFDLabels([]Card{c}, NFDOptions{Now: at}); err == nil {
		t.Error("zero maximum age: want an error")
	}
}

func TestNFDRefusesLabelBeyondRules(t *testing.T) {
	c := exampleCard(t, h200Card)
	p := *c.Payload
	p.Capability.Precisions = append([]schema.PrecisionThroughput{}, p.Capability.Precisions...)
	long := p.Capability.Precisions[0]
	long.InputType = strings.Repeat("x", 60)
	p.Capability.Precisions = append(p.Capability.Precisions, long)
	c.Payload = &p
	_, _, err := NFDLabels([]Card{c}, NFDOptions{Now: probedAt(t, c), MaxAge: time.Hour})
	if err == nil || !strings.Contains(err.Error(), "Kubernetes rules") {
		t.Fatalf("err = %v, want a label-rule error", err)
	}
}

func TestNFDNodeWideOnlyWhenEveryDeviceHasIt(t *testing.T) {
	a, b := exampleCard(t, h200Card), exampleCard(t, h200x2Card1)
	// a has matrix figures (--coopmat), b none.
	m := labelMap(mustLabels(t, []Card{a, b}, probedAt(t, a)))
	if m["dev0.fp16-matrix-tops"] == "" {
		t.Fatal("fixture: want a matrix figure on dev0")
	}
	if _, ok := m["fp16-matrix-tops-min"]; ok {
		t.Error("fp16-matrix-tops-min written though dev1 has no such figure")
	}
	if m["fp32-vector-tops-min"] == "" {
		t.Error("fp32-vector-tops-min missing though both devices have it")
	}
}

func TestNFDFileIsDeterministic(t *testing.T) {
	c := []Card{exampleCard(t, h200x2Card0), exampleCard(t, h200x2Card1)}
	opt := NFDOptions{Now: probedAt(t, c[0]), MaxAge: time.Hour}
	one, err := NFD(c, opt)
	if err != nil {
		t.Fatal(err)
	}
	two, _ := NFD(c, opt)
	if !bytes.Equal(one, two) {
		t.Fatal("two exports of the same cards differ")
	}
}

func TestNFDRefusesFileNFDWouldSkip(t *testing.T) {
	c := exampleCard(t, h200Card)
	p := *c.Payload
	base := p.Capability.Precisions[0]
	for i := range 1000 {
		e := base
		e.InputType = fmt.Sprintf("t%04d", i)
		p.Capability.Precisions = append(slices.Clone(p.Capability.Precisions), e)
	}
	c.Payload = &p
	_, err := NFD([]Card{c}, NFDOptions{Now: probedAt(t, c), MaxAge: time.Hour})
	if err == nil || !strings.Contains(err.Error(), "NFD skips") {
		t.Fatalf("err = %v, want the size limit", err)
	}
}

package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/everycycle/appraise/schema"
)

// errVerify is returned when any report fails verification.
var errVerify = errors.New("verification failed")

// verifyCmd checks signatures, format and box links of reports.
type verifyCmd struct {
	Paths     []string `arg:"" placeholder:"CARD|DIR" help:"Card reports, or directories whose *.appraisal.json files are all checked."`
	Box       string   `placeholder:"BOX" help:"Box report the cards link (default: found beside each card by its hash)."`
	Trust     string   `placeholder:"PUBKEY|FILE" help:"Pin the tenant key: a base64 public key, or a file from 'appraise keys export-public'."`
	Rotations []string `placeholder:"FILE|DIR" help:"Rotation statements (files, or a directory such as the key directory's rotations/) that lead from an older key to the pinned one."`
	JSON      bool     `name:"json" help:"Print JSON instead of a table."`
}

// outcome is the verdict on one report file.
type outcome struct {
	File        string `json:"file"`
	Kind        string `json:"kind"`
	OK          bool   `json:"ok"`
	Tenant      string `json:"tenant,omitempty"`
	Fingerprint string `json:"key_fingerprint,omitempty"`
	// Trust is "pinned" (signed by the --trust key), "rotated" (by a
	// predecessor of it), or "unpinned" (no --trust given).
	Trust string `json:"trust,omitempty"`
	Box   string `json:"box,omitempty"`
	Error string `json:"error,omitempty"`
}

// report is one parsed and signature-checked file.
type reportFile struct {
	path     string
	card     *schema.CardPayload
	box      *schema.BoxPayload
	verified *schema.Verified
}

func (c *verifyCmd) Run(e *env) error {
	pol, err := c.trustPolicy()
	if err != nil {
		return err
	}
	files, fromDir, err := expand(c.Paths, "*.appraisal.json")
	if err != nil {
		return err
	}
	if c.Box != "" {
		files = append(files, c.Box)
	}
	reports, outs := readReports(files)
	boxes := map[string]*reportFile{}
	for _, r := range reports {
		if r != nil && r.box != nil {
			boxes[r.verified.Hash] = r
		}
	}
	for i, r := range reports {
		if r == nil {
			continue
		}
		outs[i] = pol.judge(r, boxes, c.Box == "")
	}
	wholeRuns(reports, outs, fromDir)
	failed := 0
	for _, o := range outs {
		if !o.OK {
			failed++
		}
	}
	if err := c.render(e, outs); err != nil {
		return err
	}
	if failed > 0 {
		return withCode(exitVerify, fmt.Errorf("%w: %d of %d reports", errVerify, failed, len(outs)), "")
	}
	if pol.trusted == nil {
		fmt.Fprintln(e.stderr, "appraise: warning: signatures are valid, but no key is pinned: pass --trust with the tenant's public key")
	}
	return nil
}

// expand turns directories into the files in them that match pattern,
// sorted; a directory with none is an error. Files are kept as given.
// fromDir holds the files that came from a directory.
func expand(paths []string, pattern string) (out []string, fromDir map[string]bool, err error) {
	fromDir = map[string]bool{}
	for _, p := range paths {
		st, err := os.Stat(p)
		if err != nil {
			return nil, nil, err
		}
		if !st.IsDir() {
			out = append(out, p)
			continue
		}
		m, err := filepath.Glob(filepath.Join(p, pattern))
		if err != nil {
			return nil, nil, err
		}
		if len(m) == 0 {
			return nil, nil, fmt.Errorf("%s: no %s files", p, pattern)
		}
		sort.Strings(m)
		for _, f := range m {
			fromDir[f] = true
		}
		out = append(out, m...)
	}
	return out, fromDir, nil
}

// wholeRuns fails a box found in a directory unless a card of each device
// it lists sits in the same directory and links it: a run's directory
// holds the whole run, and a missing card is a report lost.
func wholeRuns(reports []*reportFile, outs []outcome, fromDir map[string]bool) {
	for i, b := range reports {
		if b == nil || b.box == nil || !outs[i].OK || !fromDir[b.path] {
			continue
		}
		want := map[string]bool{}
		for _, d := range b.box.DriverVersions {
			want[d.BusAddress] = true
		}
		cards := 0
		for j, r := range reports {
			if r == nil || r.card == nil || !outs[j].OK || r.card.BoxReport != b.verified.Hash || filepath.Dir(r.path) != filepath.Dir(b.path) {
				continue
			}
			cards++
			delete(want, r.card.Capability.Identity.BusAddress)
		}
		if cards != len(b.box.DriverVersions) {
			var missing []string
			for a := range want {
				missing = append(missing, a)
			}
			sort.Strings(missing)
			outs[i].OK = false
			outs[i].Error = fmt.Sprintf("box lists %d appraised devices, but %d cards in its directory link it (unmatched: %s)",
				len(b.box.DriverVersions), cards, strings.Join(missing, ", "))
		}
	}
}

// readReports reads and signature-checks each file once (a file named
// twice is read once). A file that fails gets its outcome at once.
func readReports(files []string) ([]*reportFile, []outcome) {
	seen := map[string]bool{}
	var reports []*reportFile
	var outs []outcome
	for _, f := range files {
		abs, _ := filepath.Abs(f)
		if seen[abs] {
			continue
		}
		seen[abs] = true
		r, kind, err := readReport(f)
		outs = append(outs, outcome{File: f, Kind: kind})
		if err != nil {
			outs[len(outs)-1].Error = err.Error()
		}
		reports = append(reports, r)
	}
	return reports, outs
}

func readReport(path string) (*reportFile, string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, "unknown", err
	}
	r := &reportFile{path: path}
	if isBox(data) {
		r.box, r.verified, err = schema.ReadBox(data)
		if err != nil {
			return nil, "box", err
		}
		return r, "box", nil
	}
	r.card, r.verified, err = schema.ReadCard(data)
	if err != nil {
		return nil, "card", err
	}
	return r, "card", nil
}

// isBox tells a box report from a card by its payload's members; the
// strict reader of the chosen kind then rejects anything else.
func isBox(data []byte) bool {
	var probe struct {
		Payload map[string]json.RawMessage `json:"payload"`
	}
	if json.Unmarshal(data, &probe) != nil {
		return false
	}
	_, host := probe.Payload["host"]
	_, capability := probe.Payload["capability"]
	return host && !capability
}

func (c *verifyCmd) render(e *env, outs []outcome) error {
	if c.JSON {
		return e.printJSON(outs)
	}
	tw := tabwriter.NewWriter(e.stdout, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "FILE\tKIND\tRESULT\tKEY\tTRUST\tDETAIL")
	for _, o := range outs {
		result, detail := "ok", o.Box
		if detail != "" {
			detail = "box " + detail
		}
		if !o.OK {
			result, detail = "FAIL", o.Error
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", o.File, o.Kind, result, dash(o.Fingerprint), dash(o.Trust), detail)
	}
	return tw.Flush()
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

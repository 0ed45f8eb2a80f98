package main

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/everycycle/appraise/schema"
	"github.com/everycycle/appraise/web"
)

// The browser test holds the verifier page against appraise verify: for
// every committed example and every tamper case of our tests, the page
// that 'appraise view' writes must reach the CLI's verdict for the same
// reason class, file by file, in Debian's chromium, headless, driven by
// web/test/browser.mjs (playwright-core from web/node_modules, installed
// by scripts/web-bundle). The drag-and-drop page is held to the same
// verdicts for the H200 card, as given and tampered. Without node,
// chromium or web/node_modules the test skips, and fails with CI=true.
//
// It saves a screenshot of the H200 card's page to
// web/artifacts/view-h200-crosscheck.png (APPRAISE_ARTIFACTS names
// another directory): CI keeps it as an artifact.

// browserCase is one run of the page, and of appraise verify on the same
// files.
type browserCase struct {
	name  string
	paths []string // as given to verify and view
	trust string   // --trust, or ""
}

// edit is one tamper case: the first `from` in the file replaced by `to`.
type edit struct{ name, from, to string }

// cardEdits are the card tampers of our tests (schema's TestTamperedCardFails,
// TestStrictReading and FuzzReadCard seeds, the CLI transcripts), applied
// to the H200 card.
var cardEdits = []edit{
	{"figure", `"median": `, `"median": 1`},
	{"identity", `"device_id": "2335"`, `"device_id": "2334"`},
	{"box-link", `"box_report": "`, `"box_report": "0`},
	{"signature", `"sig": "`, `"sig": "A`},
	{"duplicate-key", `"report_version": "1",`, `"report_version": "1", "report_version": "1",`},
	{"invalid-utf8", `"name": "NVIDIA H200"`, "\"name\": \"NVIDIA\xff H200\""},
	{"lone-surrogate", `"name": "NVIDIA H200"`, `"name": "\ud800NVIDIA H200"`},
	{"non-finite", `"median": `, `"median": 1e400, "x": `},
	{"unknown-member", `"report_version": "1",`, `"report_version": "1", "rating": 5,`},
	{"case-folded", `"probed_at"`, `"Probed_At"`},
	{"explicit-null", `"identity": {`, `"cross_checks": null, "identity": {`},
	{"wrong-type", `"report_version": "1"`, `"report_version": 1`},
	{"version", `"report_version": "1"`, `"report_version": "2"`},
	{"check-failed", `"passed": true`, `"passed": false`},
	{"alg", `"alg": "ed25519"`, `"alg": "rsa"`},
	{"nested-payload", `"payload": {`, `"payload": {"payload": {},`},
	{"software-flag", `"software": false`, `"software": true`},
	{"extra-brace", `}`, `}}`},
	{"removed-member", `"probed_at": "2026-11-30T01:58:32Z",`, ``},
	{"ratio", `"ratio": `, `"ratio": 0.5, "x": `},
}

const h200 = "example-h200-crosscheck"
const h200Card = "card-6db1659cde1985c6.appraisal.json"

func TestViewInBrowser(t *testing.T) {
	t.Parallel()
	node, chromium := browserTools(t)
	work := t.TempDir()
	for _, d := range []string{"../../docs/example", "../../docs/archive/2026-11/example-h200", "../../docs/archive/2026-11/example-h200x2", "../../docs/archive/2026-11/example-h200-crosscheck", "../../docs/archive/2026-11/example-h200-bench", "testdata/h200-lost-card"} {
		if err := copyDir(d, filepath.Join(work, filepath.Base(d))); err != nil {
			t.Fatal(err)
		}
	}
	at := func(p ...string) string { return filepath.Join(append([]string{work}, p...)...) }
	var cases []browserCase
	for _, d := range []string{"example", "example-h200", "example-h200x2", h200, "example-h200-bench"} {
		pub, _ := filepath.Glob(at(d, "*pub*.json"))
		cases = append(cases, browserCase{name: d + "-pinned", paths: []string{at(d)}, trust: pub[0]}, browserCase{name: d + "-unpinned", paths: []string{at(d)}})
	}
	cases = append(cases,
		browserCase{name: "lost-card-run", paths: []string{at("h200-lost-card")}, trust: at("h200-lost-card", "pub.json")},
		browserCase{name: "lost-card-alone", paths: []string{at("h200-lost-card", "card-6db1659cde1985c6.appraisal.json")}, trust: at("h200-lost-card", "pub.json")},
		browserCase{name: "other-key", paths: []string{at("example-h200x2")}, trust: at("example", "public.json")},
		browserCase{name: "card-file", paths: []string{at(h200, h200Card)}},
	)
	cases = append(cases, tamperCases(t, work)...)
	cases = append(cases, resignedCases(t, work)...)
	manifest, pages := browserManifest(t, work, cases)
	results := runBrowser(t, node, chromium, work, manifest)
	for i, c := range cases {
		r := results[pages[i]]
		cli := cliVerdicts(t, c)
		t.Run(c.name, func(t *testing.T) {
			t.Logf("page: %s", r.Verdict)
			holdAgainstCLI(t, r, cli)
		})
	}
	t.Run("h200-sections", func(t *testing.T) { checkSections(t, results["example-h200-crosscheck-pinned"]) })
	t.Run("drop", func(t *testing.T) { checkDrops(t, results, cases) })
}

// browserTools finds node, chromium and playwright-core, or skips (fails
// under CI=true).
func browserTools(t *testing.T) (node, chromium string) {
	missing := func(what string) {
		if os.Getenv("CI") == "true" {
			t.Fatalf("CI=true but %s: scripts/install-deps installs chromium and node, scripts/web-bundle web/node_modules", what)
		}
		t.Skipf("%s: the browser test needs node, chromium and web/node_modules (scripts/web-bundle)", what)
	}
	node, err := exec.LookPath("node")
	if err != nil {
		missing("no node on PATH")
	}
	chromium = os.Getenv("CHROMIUM")
	if chromium == "" {
		chromium = "/usr/bin/chromium"
	}
	if _, err := os.Stat(chromium); err != nil {
		missing("no chromium at " + chromium)
	}
	if _, err := os.Stat("../../web/node_modules/playwright-core/package.json"); err != nil {
		missing("no web/node_modules/playwright-core")
	}
	return node, chromium
}

// tamperCases writes each card edit beside an intact box (the card given
// by name, its box found beside it), the box tampers, a card without its
// box and a card with another run's box.
func tamperCases(t *testing.T, work string) []browserCase {
	card := mustRead(t, filepath.Join(work, h200, h200Card))
	boxes, _ := filepath.Glob(filepath.Join(work, h200, "box-*.appraisal.json"))
	box := mustRead(t, boxes[0])
	var cases []browserCase
	for _, e := range cardEdits {
		if !bytes.Contains(card, []byte(e.from)) {
			t.Fatalf("%s: the H200 card lacks %q", e.name, e.from)
		}
		dir := filepath.Join(work, "tamper", e.name)
		mustWrite(t, filepath.Join(dir, h200Card), bytes.Replace(card, []byte(e.from), []byte(e.to), 1))
		mustWrite(t, filepath.Join(dir, filepath.Base(boxes[0])), box)
		cases = append(cases, browserCase{name: "card-" + e.name, paths: []string{filepath.Join(dir, h200Card)}})
	}
	for _, e := range []edit{{"hostname", `"hostname": "`, `"hostname": "x`}, {"driver", `"driver_version": "`, `"driver_version": "1`}} {
		dir := filepath.Join(work, "tamper", "box-"+e.name)
		mustWrite(t, filepath.Join(dir, h200Card), card)
		mustWrite(t, filepath.Join(dir, filepath.Base(boxes[0])), bytes.Replace(box, []byte(e.from), []byte(e.to), 1))
		cases = append(cases,
			browserCase{name: "box-" + e.name + "-card", paths: []string{filepath.Join(dir, h200Card)}},
			browserCase{name: "box-" + e.name + "-dir", paths: []string{dir}})
	}
	lone := filepath.Join(work, "tamper", "lone", h200Card)
	mustWrite(t, lone, card)
	other, _ := filepath.Glob(filepath.Join(work, "example-h200-bench", "box-*.appraisal.json"))
	cases = append(cases,
		browserCase{name: "card-without-box", paths: []string{lone}},
		browserCase{name: "card-other-box", paths: []string{lone, other[0]}},
		browserCase{name: "empty", paths: []string{writeCase(t, work, "empty", nil)}},
		browserCase{name: "not-json", paths: []string{writeCase(t, work, "not-json", []byte("card\n"))}},
		browserCase{name: "trailing-data", paths: []string{writeCase(t, work, "trailing", append(bytes.Clone(card), "{}"...))}},
	)
	return cases
}

// resignedCases re-sign edited payloads with a test key, box and card
// alike, so that the signature holds and what fails is the format: a
// failed check, an unexplained absence, a disagreeing cross-check, a
// missing member, a null.
func resignedCases(t *testing.T, work string) []browserCase {
	seed := sha256.Sum256([]byte("browser"))
	key := ed25519.NewKeyFromSeed(seed[:])
	boxes, _ := filepath.Glob(filepath.Join(work, h200, "box-*.appraisal.json"))
	box := resign(t, key, mustRead(t, boxes[0]), func(map[string]any) {})
	card := mustRead(t, filepath.Join(work, h200, h200Card))
	capability := func(p map[string]any) map[string]any { return p["capability"].(map[string]any) }
	edits := []struct {
		name string
		edit func(map[string]any)
	}{
		{"intact", func(map[string]any) {}},
		{"check-failed", func(p map[string]any) {
			capability(p)["precisions"].([]any)[0].(map[string]any)["check"].(map[string]any)["passed"] = false
		}},
		{"unexplained-absence", func(p map[string]any) { capability(p)["not_measured"] = capability(p)["not_measured"].([]any)[1:] }},
		{"cross-check-disagrees", func(p map[string]any) {
			capability(p)["cross_checks"].([]any)[1].(map[string]any)["relative_delta"] = 0.2
		}},
		{"stat-order", func(p map[string]any) {
			capability(p)["precisions"].([]any)[0].(map[string]any)["ops_per_s"].(map[string]any)["min"] = 1e20
		}},
		{"missing-member", func(p map[string]any) { delete(capability(p)["identity"].(map[string]any), "name") }},
		{"null-member", func(p map[string]any) { capability(p)["identity"].(map[string]any)["name"] = nil }},
	}
	pub := filepath.Join(work, "resigned", "pub.txt")
	mustWrite(t, pub, []byte(base64.StdEncoding.EncodeToString(key.Public().(ed25519.PublicKey))+"\n"))
	var cases []browserCase
	for _, e := range edits {
		dir := filepath.Join(work, "resigned", e.name)
		mustWrite(t, filepath.Join(dir, filepath.Base(boxes[0])), box)
		mustWrite(t, filepath.Join(dir, h200Card), resign(t, key, card, e.edit))
		cases = append(cases, browserCase{name: "resigned-" + e.name, paths: []string{dir}, trust: pub})
	}
	return cases
}

// resign edits a report's payload and signs its canonical bytes with key.
func resign(t *testing.T, key ed25519.PrivateKey, file []byte, edit func(map[string]any)) []byte {
	var doc struct {
		Payload   map[string]any   `json:"payload"`
		Signature schema.Signature `json:"signature"`
	}
	if err := json.Unmarshal(file, &doc); err != nil {
		t.Fatal(err)
	}
	edit(doc.Payload)
	raw, err := json.Marshal(doc.Payload)
	if err != nil {
		t.Fatal(err)
	}
	canonical, err := schema.CanonicalizeJSON(raw)
	if err != nil {
		t.Fatal(err)
	}
	doc.Signature.TenantIdentity = "browser"
	doc.Signature.TenantPubkey = base64.StdEncoding.EncodeToString(key.Public().(ed25519.PublicKey))
	doc.Signature.Sig = base64.StdEncoding.EncodeToString(ed25519.Sign(key, canonical))
	out, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// browserManifest writes each case's page with appraise view, plus the
// drag-and-drop cases on the bare page, and returns the manifest's path
// and each case's page name in the results.
func browserManifest(t *testing.T, work string, cases []browserCase) (string, []string) {
	type file struct {
		Name string `json:"name"`
		Path string `json:"path"`
	}
	type entry struct {
		Name       string `json:"name"`
		Page       string `json:"page"`
		Drop       []file `json:"drop,omitempty"`
		Screenshot string `json:"screenshot,omitempty"`
	}
	var entries []entry
	var names []string
	for i, c := range cases {
		out := filepath.Join(work, "pages", strings.ReplaceAll(c.name, "/", "_"))
		args := []string{"view", "--out", out}
		if c.trust != "" {
			args = append(args, "--trust", c.trust)
		}
		var stdout, stderr bytes.Buffer
		if code := run(context.Background(), append(args, c.paths...), &env{ctx: context.Background(), stdout: &stdout, stderr: &stderr, getenv: os.Getenv}); code != 0 {
			t.Fatalf("%s: appraise view: exit %d: %s", c.name, code, stderr.String())
		}
		page := strings.TrimSpace(stdout.String())
		if page != filepath.Join(out, "index.html") {
			t.Fatalf("%s: appraise view printed %q, want %s", c.name, page, filepath.Join(out, "index.html"))
		}
		e := entry{Name: c.name, Page: page}
		if c.name == h200+"-pinned" {
			e.Screenshot = screenshotPath(t)
		}
		entries = append(entries, e)
		names = append(names, cases[i].name)
	}
	bare := filepath.Join(work, "pages", "bare.html")
	mustWrite(t, bare, web.Page())
	drops := map[string][]string{
		"drop-h200":          {filepath.Join(work, h200, h200Card), firstGlob(t, filepath.Join(work, h200, "box-*.json")), filepath.Join(work, h200, "pub.json")},
		"drop-h200-unpinned": {filepath.Join(work, h200, h200Card), firstGlob(t, filepath.Join(work, h200, "box-*.json"))},
		"drop-figure":        {filepath.Join(work, "tamper", "figure", h200Card), firstGlob(t, filepath.Join(work, "tamper", "figure", "box-*.json"))},
		"drop-card-alone":    {filepath.Join(work, "tamper", "lone", h200Card)},
		"drop-other-key":     {filepath.Join(work, h200, h200Card), firstGlob(t, filepath.Join(work, h200, "box-*.json")), filepath.Join(work, "example", "public.json")},
	}
	for _, name := range slices.Sorted(maps.Keys(drops)) {
		e := entry{Name: name, Page: bare}
		for _, p := range drops[name] {
			e.Drop = append(e.Drop, file{Name: filepath.Base(p), Path: p})
		}
		entries = append(entries, e)
	}
	b, err := json.Marshal(entries)
	if err != nil {
		t.Fatal(err)
	}
	manifest := filepath.Join(work, "cases.json")
	mustWrite(t, manifest, b)
	return manifest, names
}

func screenshotPath(t *testing.T) string {
	dir := os.Getenv("APPRAISE_ARTIFACTS")
	if dir == "" {
		dir = "../../web/artifacts"
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	abs, err := filepath.Abs(filepath.Join(dir, "view-h200-crosscheck.png"))
	if err != nil {
		t.Fatal(err)
	}
	return abs
}

// pageResult is what web/test/browser.mjs reads off one page.
type pageResult struct {
	Name    string   `json:"name"`
	Errors  []string `json:"errors"`
	Verdict string   `json:"verdict"`
	OK      string   `json:"ok"`
	Reason  string   `json:"reason"`
	Pinned  string   `json:"pinned"`
	Files   []struct {
		File   string `json:"file"`
		OK     bool   `json:"ok"`
		Reason string `json:"reason"`
	} `json:"files"`
	Cards []struct {
		File     string   `json:"file"`
		Sections []string `json:"sections"`
		Plots    int      `json:"plots"`
		Text     string   `json:"text"`
	} `json:"cards"`
	Chooser *otherWayIn `json:"chooser"`
	Pasted  *otherWayIn `json:"pasted"`
}

// otherWayIn is the verdict on the same files given another way.
type otherWayIn struct {
	Verdict string `json:"verdict"`
	OK      string `json:"ok"`
	Reason  string `json:"reason"`
}

func runBrowser(t *testing.T, node, chromium, work, manifest string) map[string]pageResult {
	out := filepath.Join(work, "results.json")
	// The script's steps have no time limits of their own (a busy machine
	// makes any limit a guess); the test's deadline stops it instead, with
	// a minute left to report.
	ctx := t.Context()
	if d, ok := t.Deadline(); ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithDeadline(ctx, d.Add(-time.Minute))
		defer cancel()
	}
	cmd := exec.CommandContext(ctx, node, "../../web/test/browser.mjs", manifest, out)
	cmd.Env = append(os.Environ(), "CHROMIUM="+chromium, "PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1")
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("web/test/browser.mjs: %v\n%s", err, b)
	}
	var rs []pageResult
	if err := json.Unmarshal(mustRead(t, out), &rs); err != nil {
		t.Fatal(err)
	}
	m := map[string]pageResult{}
	for _, r := range rs {
		m[r.Name] = r
	}
	return m
}

// cliVerdict is appraise verify's verdict on one file.
type cliVerdict struct {
	File  string `json:"file"`
	OK    bool   `json:"ok"`
	Error string `json:"error"`
}

func cliVerdicts(t *testing.T, c browserCase) []cliVerdict {
	args := []string{"verify", "--json"}
	if c.trust != "" {
		args = append(args, "--trust", c.trust)
	}
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), append(args, c.paths...), &env{ctx: context.Background(), stdout: &stdout, stderr: &stderr, getenv: os.Getenv})
	var vs []cliVerdict
	if err := json.Unmarshal(stdout.Bytes(), &vs); err != nil || (code != 0 && code != exitVerify) {
		t.Fatalf("%s: appraise verify: exit %d, %v: %s", c.name, code, err, stderr.String())
	}
	return vs
}

// reasonClass names the class of an appraise verify error as the page
// names its reasons (web/src/errors.js).
func reasonClass(msg string) string {
	switch {
	case strings.Contains(msg, "malformed report"):
		return "malformed"
	case strings.Contains(msg, "invalid report"):
		return "invalid"
	case strings.Contains(msg, "signature does not verify"):
		return "signature"
	case strings.Contains(msg, "box lists"):
		return "run"
	case strings.Contains(msg, "box report") && strings.Contains(msg, "not found"), strings.Contains(msg, "signed by another key"):
		return "box"
	case strings.Contains(msg, "not the pinned key"), strings.Contains(msg, "tenant_identity"), strings.Contains(msg, "retired"):
		return "key"
	}
	return "other: " + msg
}

func holdAgainstCLI(t *testing.T, r pageResult, cli []cliVerdict) {
	if len(r.Errors) > 0 {
		t.Errorf("console errors: %q", r.Errors)
	}
	allOK := true
	for _, v := range cli {
		allOK = allOK && v.OK
	}
	if want := map[bool]string{true: "verified", false: "NOT verified"}[allOK]; !strings.HasPrefix(r.Verdict, want) || (allOK && strings.HasPrefix(r.Verdict, "NOT")) {
		t.Errorf("page says %q; appraise verify says %+v", r.Verdict, cli)
	}
	if len(r.Files) != len(cli) {
		t.Fatalf("page lists %d files, appraise verify %d: %+v vs %+v", len(r.Files), len(cli), r.Files, cli)
	}
	for i, v := range cli {
		f := r.Files[i]
		if f.File != v.File || f.OK != v.OK {
			t.Errorf("%s: page ok=%t (%s), appraise verify ok=%t (%s)", v.File, f.OK, f.Reason, v.OK, v.Error)
			continue
		}
		if !v.OK && f.Reason != reasonClass(v.Error) {
			t.Errorf("%s: page's reason %q, appraise verify's %q (%s); page: %s", filepath.Base(v.File), f.Reason, reasonClass(v.Error), v.Error, r.Verdict)
		}
	}
	if !allOK && r.Reason == "" {
		t.Errorf("verdict %q has no reason", r.Verdict)
	}
}

// checkSections asks that the H200 card shows every section it has, its
// plots and its figures in units a person reads.
func checkSections(t *testing.T, r pageResult) {
	if len(r.Cards) != 1 {
		t.Fatalf("%d cards shown, want 1", len(r.Cards))
	}
	c := r.Cards[0]
	for _, s := range []string{"identity", "precisions", "memory", "interconnect", "launch", "thermal", "roofline", "cross_checks", "not_measured", "environment"} {
		if !slices.Contains(c.Sections, s) {
			t.Errorf("section %s missing (shown: %v)", s, c.Sections)
		}
	}
	if c.Plots < 3 {
		t.Errorf("%d plots, want the thermal timeline and a roofline per precision", c.Plots)
	}
	for _, want := range []string{"TB/s", "TFLOP/s", "TOP/s", "µs", "GiB", "metadata", "at-least", "did not throttle", "coopmat-gemm", "NVIDIA H200"} {
		if !strings.Contains(c.Text, want) {
			t.Errorf("the card's text lacks %q", want)
		}
	}
	if r.Pinned != "true" {
		t.Errorf("key status pinned=%q, want true", r.Pinned)
	}
}

// checkDrops holds the drag-and-drop page, by drop, by the file chooser
// and by pasting, to the verdicts of appraise view's page on the same files.
func checkDrops(t *testing.T, results map[string]pageResult, cases []browserCase) {
	for name, want := range map[string]struct{ ok, reason, pinned string }{
		"drop-h200":          {"true", "", "true"},
		"drop-h200-unpinned": {"true", "", "false"},
		"drop-figure":        {"false", "signature", "false"},
		"drop-card-alone":    {"false", "box", "false"},
		"drop-other-key":     {"false", "key", "true"},
	} {
		r := results[name]
		if r.OK != want.ok || r.Reason != want.reason || r.Pinned != want.pinned || len(r.Errors) > 0 {
			t.Errorf("%s: ok=%s reason=%q pinned=%s errors=%q (%s), want ok=%s reason=%q pinned=%s", name, r.OK, r.Reason, r.Pinned, r.Errors, r.Verdict, want.ok, want.reason, want.pinned)
		}
		for way, o := range map[string]*otherWayIn{"the file chooser": r.Chooser, "pasting": r.Pasted} {
			if o == nil || o.OK != r.OK || o.Reason != r.Reason {
				t.Errorf("%s: %s gave %+v, the drop %s %q", name, way, o, r.OK, r.Reason)
			}
		}
	}
	if !strings.HasPrefix(results["drop-h200-unpinned"].Verdict, "verified, but the key is NOT PINNED") {
		t.Errorf("unpinned verdict: %q", results["drop-h200-unpinned"].Verdict)
	}
}

func writeCase(t *testing.T, work, name string, b []byte) string {
	p := filepath.Join(work, "tamper", name, "card-x.appraisal.json")
	mustWrite(t, p, b)
	return p
}

func firstGlob(t *testing.T, pattern string) string {
	m, _ := filepath.Glob(pattern)
	if len(m) == 0 {
		t.Fatalf("nothing matches %s", pattern)
	}
	return m[0]
}

func mustRead(t *testing.T, p string) []byte {
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func mustWrite(t *testing.T, p string, b []byte) {
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

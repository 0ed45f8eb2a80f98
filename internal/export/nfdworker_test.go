package export

import (
	"bytes"
	"context"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/everycycle/appraise/internal/export/tooltest"
)

// The tests here run the real nfd-worker of Node Feature Discovery
// (scripts/fleet-tools builds the pinned version) on our feature file,
// once, without publishing, and read the labels it would publish from its
// log.

// kubeconfig names a server the worker never contacts: with -no-publish it
// builds a client and sends nothing.
const kubeconfig = `apiVersion: v1
kind: Config
clusters: [{name: none, cluster: {server: "https://127.0.0.1:1"}}]
contexts: [{name: none, context: {cluster: none, user: none}}]
current-context: none
users: [{name: none, user: {}}]
`

// nfdRun is one nfd-worker pass: the labels it would publish and its log.
type nfdRun struct {
	labels map[string]string
	log    string
}

// runNFDWorker writes files into a fresh features.d and runs nfd-worker
// over it once, with the local source and, as its custom source, rules
// (YAML list items indented four spaces, as under a NodeFeatureRule's
// spec.rules).
func runNFDWorker(t *testing.T, worker string, files map[string][]byte, rules string) nfdRun {
	t.Helper()
	dir := t.TempDir()
	fd := filepath.Join(dir, "features.d")
	if err := os.Mkdir(fd, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(fd, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	conf := "core:\n  featureSources: [local]\n  labelSources: [local, custom]\nsources:\n  custom:\n" + rules
	if rules == "" {
		conf = "core:\n  featureSources: [local]\n  labelSources: [local]\n"
	}
	for name, data := range map[string]string{"kubeconfig": kubeconfig, "nfd-worker.conf": conf} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, worker, "-oneshot", "-no-publish", "-kubeconfig", "kubeconfig",
		"-config", "nfd-worker.conf", "-metrics", "0", "-grpc-health", "0", "-v", "1")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "NODE_NAME=appraise-test")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("nfd-worker: %v\n%s", err, out)
	}
	return nfdRun{labels: publishedLabels(t, string(out)), log: string(out)}
}

// publishedRe finds the worker's closing log line, which lists the labels
// it would publish as YAML between "labels=<" and " >".
var publishedRe = regexp.MustCompile(`(?s)"feature discovery completed" labels=<\n(.*?)\n >`)

func publishedLabels(t *testing.T, log string) map[string]string {
	t.Helper()
	m := publishedRe.FindStringSubmatch(log)
	labels := map[string]string{}
	if m == nil {
		t.Fatalf("no label list in nfd-worker's log:\n%s", log)
	}
	if strings.TrimSpace(m[1]) == "{}" {
		return labels
	}
	for _, line := range strings.Split(m[1], "\n") {
		k, v, ok := strings.Cut(strings.TrimSpace(line), ": ")
		if !ok {
			t.Fatalf("label line %q", line)
		}
		if uv, err := strconv.Unquote(v); err == nil {
			v = uv
		}
		labels[k] = v
	}
	return labels
}

// docRules returns the rules of the NodeFeatureRule example in
// docs/fleets.md.
func docRules(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile("../../docs/fleets.md")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile("(?s)```yaml\n(apiVersion: nfd.k8s-sigs.io/v1alpha1\nkind: NodeFeatureRule\n.*?)```").FindSubmatch(b)
	if m == nil {
		t.Fatal("docs/fleets.md has no NodeFeatureRule example")
	}
	_, rules, ok := strings.Cut(string(m[1]), "\n  rules:\n")
	if !ok {
		t.Fatal("docs/fleets.md's NodeFeatureRule has no spec.rules")
	}
	return rules
}

// ourLabels are the labels of a feature file NFD wrote, by full name.
func ourLabels(t *testing.T, file []byte) map[string]string {
	t.Helper()
	m := map[string]string{}
	for _, line := range strings.Split(string(file), "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		k, v, _ := strings.Cut(line, "=")
		m[k] = v
	}
	return m
}

// freshOptions exports the example cards as if an hour after the newest
// was appraised (so their ages are the same whenever the test runs), with
// a maximum age that keeps the labels alive a day past the real now, when
// the worker reads them.
func freshOptions(t *testing.T, cards []Card) NFDOptions {
	t.Helper()
	oldest, newest := probedAt(t, cards[0]), probedAt(t, cards[0])
	for _, c := range cards {
		at := probedAt(t, c)
		if at.Before(oldest) {
			oldest = at
		}
		if at.After(newest) {
			newest = at
		}
	}
	return NFDOptions{Now: newest.Add(time.Hour), MaxAge: time.Since(oldest) + 24*time.Hour}
}

func TestNFDWorkerPublishesOurLabelsAndTiers(t *testing.T) {
	worker := tooltest.Built(t, "nfd-worker")
	rules := docRules(t)
	cards := []Card{exampleCard(t, h200x2Card0), exampleCard(t, h200x2Card1)}
	ours, err := NFD(cards, freshOptions(t, cards))
	if err != nil {
		t.Fatal(err)
	}
	run := runNFDWorker(t, worker, map[string][]byte{
		"appraise": ours,
		// A half-written file as WriteFile leaves it before its rename.
		".appraise.tmp-0123456789ab": []byte(LabelPrefix + "cards=99\n"),
	}, rules)
	want := ourLabels(t, ours)
	want[LabelPrefix+"tier"] = "large"
	if !maps.Equal(run.labels, want) {
		t.Errorf("nfd-worker would publish\n%v\nwant\n%v\nlog:\n%s", sortedKeys(run.labels), sortedKeys(want), run.log)
	}
	for _, complaint := range []string{"ignoring label", "error while parsing", "failed to read"} {
		if strings.Contains(run.log, complaint) {
			t.Errorf("nfd-worker complained about our file (%q):\n%s", complaint, run.log)
		}
	}
	if len(want) < 40 {
		t.Errorf("only %d labels for a node of two GPUs", len(want))
	}

	// The same node with a quarter of the bandwidth: the medium tier.
	slow := make([]Card, len(cards))
	for i, c := range cards {
		p := *c.Payload
		mem := *p.Capability.Memory
		mem.Bandwidth = slices.Clone(mem.Bandwidth)
		for j := range mem.Bandwidth {
			mem.Bandwidth[j].BytesPerS.Median /= 4
		}
		p.Capability.Memory = &mem
		c.Payload = &p
		slow[i] = c
	}
	slowFile, err := NFD(slow, freshOptions(t, slow))
	if err != nil {
		t.Fatal(err)
	}
	if got := runNFDWorker(t, worker, map[string][]byte{"appraise": slowFile}, rules).labels[LabelPrefix+"tier"]; got != "medium" {
		t.Errorf("a quarter of the bandwidth: tier %q, want medium", got)
	}

	// A software adapter's card: no tier; the matrix rule needs a matrix figure.
	sw := []Card{exampleCard(t, softwareCard)}
	swFile, err := NFD(sw, freshOptions(t, sw))
	if err != nil {
		t.Fatal(err)
	}
	swRun := runNFDWorker(t, worker, map[string][]byte{"appraise": swFile}, rules)
	if tier, ok := swRun.labels[LabelPrefix+"tier"]; ok {
		t.Errorf("a software adapter's node got tier %q", tier)
	}
	if swRun.labels[LabelPrefix+"software-cards"] != "1" {
		t.Errorf("software-cards = %q", swRun.labels[LabelPrefix+"software-cards"])
	}
	h := []Card{exampleCard(t, h200Card)}
	hFile, err := NFD(h, freshOptions(t, h))
	if err != nil {
		t.Fatal(err)
	}
	if got := runNFDWorker(t, worker, map[string][]byte{"appraise": hFile}, rules).labels[LabelPrefix+"fp16-matrix-300"]; got != "true" {
		t.Errorf("the --coopmat H200: fp16-matrix-300 = %q, want true", got)
	}
}

// TestNFDWorkerRejectsMalformedAndExpired shows the worker's checks are
// live: the labels of a malformed file that break the rules are dropped
// with a complaint each (ours, above, draw none), and a file whose expiry
// has passed publishes nothing.
func TestNFDWorkerRejectsMalformedAndExpired(t *testing.T) {
	worker := tooltest.Built(t, "nfd-worker")
	malformed := []byte("# +expiry-time=not-a-time\n" +
		LabelPrefix + "bad name=1\n" +
		LabelPrefix + "long=" + strings.Repeat("7", 70) + "\n" +
		LabelPrefix + "ok=1\n")
	run := runNFDWorker(t, worker, map[string][]byte{"bad": malformed}, "")
	for _, complaint := range []string{"failed to parse expiry-date directive", `"ignoring label with invalid name" labelKey="` + LabelPrefix + `bad name"`, `"ignoring label with invalid value" labelKey="` + LabelPrefix + `long"`} {
		if !strings.Contains(run.log, complaint) {
			t.Errorf("no complaint %q in the worker's log:\n%s", complaint, run.log)
		}
	}
	if _, ok := run.labels[LabelPrefix+"long"]; ok || len(run.labels) > 1 {
		t.Errorf("published %v", run.labels)
	}

	// Our file, exported as if an hour after an appraisal with a two-hour
	// maximum age: in real time its expiry has long passed.
	cards := []Card{exampleCard(t, h200Card)}
	expired, err := NFD(cards, NFDOptions{Now: probedAt(t, cards[0]).Add(time.Hour), MaxAge: 2 * time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	if got := runNFDWorker(t, worker, map[string][]byte{"appraise": expired}, "").labels; len(got) != 0 {
		t.Errorf("an expired file published %v", got)
	}
}

func sortedKeys(m map[string]string) string {
	var b bytes.Buffer
	for _, k := range slices.Sorted(maps.Keys(m)) {
		b.WriteString(k + "=" + m[k] + "\n")
	}
	return b.String()
}

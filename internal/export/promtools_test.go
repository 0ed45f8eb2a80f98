package export

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/everycycle/appraise/internal/export/tooltest"
)

// The tests here hold our textfile to Debian's promtool and serve it
// through Debian's prometheus-node-exporter.

// allDevices is every example card, as one node.
func allDevices(t *testing.T) []Card {
	t.Helper()
	var all []Card
	for _, p := range allExamples(t) {
		all = append(all, exampleCard(t, p))
	}
	devs, err := Devices(all, true)
	if err != nil {
		t.Fatal(err)
	}
	return devs
}

// promtool runs "promtool check metrics" on data.
func promtool(t *testing.T, bin string, data []byte) (string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "check", "metrics")
	cmd.Stdin = bytes.NewReader(data)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

func TestPromtoolChecksOurMetrics(t *testing.T) {
	bin := tooltest.Installed(t, "promtool")
	sets := [][]Card{allDevices(t)}
	for _, p := range allExamples(t) {
		sets = append(sets, []Card{exampleCard(t, p)})
	}
	for _, cards := range sets {
		data, err := Prometheus(cards)
		if err != nil {
			t.Fatal(err)
		}
		// promtool exits non-zero on a parse error and prints a line per
		// lint problem (a missing HELP, a non-base unit, a counter without
		// _total): both fail.
		if out, err := promtool(t, bin, data); err != nil || strings.TrimSpace(out) != "" {
			t.Errorf("%s: promtool check metrics: %v\n%s", cards[0].Path, err, out)
		}
	}
	// The check is live: promtool refuses what the format forbids.
	for _, bad := range []string{
		"# HELP appraise_cards x\n# TYPE appraise_cards gauge\nappraise_cards{bus_address=\"a} 1\n",
		"# HELP appraise_x_ms Latency.\n# TYPE appraise_x_ms gauge\nappraise_x_ms 1\n",
	} {
		if out, err := promtool(t, bin, []byte(bad)); err == nil && strings.TrimSpace(out) == "" {
			t.Errorf("promtool accepted %q", bad)
		}
	}
}

// freePort is a TCP port on 127.0.0.1 that was free a moment ago.
func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// startNodeExporter runs node_exporter with only the textfile collector on
// dir, listening on 127.0.0.1, and returns its /metrics URL once it
// answers; the test stops it.
func startNodeExporter(t *testing.T, bin, dir string) string {
	t.Helper()
	addr := fmt.Sprintf("127.0.0.1:%d", freePort(t))
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	cmd := exec.CommandContext(ctx, bin, "--web.listen-address="+addr,
		"--collector.disable-defaults", "--collector.textfile", "--collector.textfile.directory="+dir)
	var log bytes.Buffer
	cmd.Stdout, cmd.Stderr = &log, &log
	if err := cmd.Start(); err != nil {
		cancel()
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cancel()
		_ = cmd.Wait() // killed by the cancel
	})
	url := "http://" + addr + "/metrics"
	deadline := time.Now().Add(30 * time.Second)
	for {
		resp, err := http.Get(url)
		if err == nil {
			resp.Body.Close()
			return url
		}
		if time.Now().After(deadline) {
			t.Fatalf("node_exporter did not answer on %s within 30 s: %v\n%s", addr, err, log.String())
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// scrape fetches url and returns its samples (see samples).
func scrape(t *testing.T, url string) map[string]float64 {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %d %v", url, resp.StatusCode, err)
	}
	return samples(string(body))
}

// samples reads the sample lines of the text format into series (name
// and labels sorted by name, which is how node_exporter re-emits them)
// and values.
func samples(text string) map[string]float64 {
	out := map[string]float64{}
	sc := bufio.NewScanner(strings.NewReader(text))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		i := strings.LastIndexByte(line, ' ')
		v, err := strconv.ParseFloat(line[i+1:], 64)
		if err != nil {
			panic(fmt.Sprintf("sample %q: %v", line, err))
		}
		out[seriesKey(line[:i])] = v
	}
	return out
}

// seriesKey is name{a="…",b="…"} with the labels sorted by name and the
// empty ones left out (node_exporter gives every series of a family the
// family's label names, empty where a series had none).
func seriesKey(s string) string {
	name, rest, ok := strings.Cut(s, "{")
	if !ok {
		return s
	}
	var pairs []string
	for rest != "}" && rest != "" {
		eq := strings.Index(rest, `="`)
		j := eq + 2
		for rest[j] != '"' {
			if rest[j] == '\\' {
				j++
			}
			j++
		}
		if pair := rest[:j+1]; !strings.HasSuffix(pair, `=""`) {
			pairs = append(pairs, pair) // an empty label is no label
		}
		rest = strings.TrimPrefix(rest[j+1:], ",")
	}
	if len(pairs) == 0 {
		return name
	}
	slices.Sort(pairs)
	return name + "{" + strings.Join(pairs, ",") + "}"
}

func TestNodeExporterServesOurMetrics(t *testing.T) {
	bin := tooltest.Installed(t, "prometheus-node-exporter")
	dir := t.TempDir()
	cards := allDevices(t)
	data, err := Prometheus(cards)
	if err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(filepath.Join(dir, "appraise.prom"), data); err != nil {
		t.Fatal(err)
	}
	// A file that is no textfile: node_exporter would report a scrape
	// error for it were it read; dot-files are not.
	if err := os.WriteFile(filepath.Join(dir, ".appraise.prom.tmp-0123456789ab"), []byte("not metrics\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	got := scrape(t, startNodeExporter(t, bin, dir))
	if v, ok := got["node_textfile_scrape_error"]; !ok || v != 0 {
		t.Errorf("node_textfile_scrape_error = %v (%v), want 0", v, ok)
	}
	want := samples(string(data))
	precisions := 0
	for _, c := range cards {
		precisions += len(c.Payload.Capability.Precisions)
	}
	if len(want) <= precisions {
		t.Fatalf("only %d series for %d cards with %d precision figures", len(want), len(cards), precisions)
	}
	for series, v := range want {
		if g, ok := got[series]; !ok || g != v {
			t.Errorf("%s: served %v (%v), want %v", series, g, ok, v)
		}
	}
	if got["appraise_cards"] != float64(len(cards)) {
		t.Errorf("appraise_cards = %v", got["appraise_cards"])
	}
}

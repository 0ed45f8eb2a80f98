package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/everycycle/appraise/gpu"
	"github.com/everycycle/appraise/internal/appraisal"
	"github.com/everycycle/appraise/internal/platform/pci"
	"github.com/everycycle/appraise/keys"
)

var updateScripts = flag.Bool("update", false, "rewrite the cmp files of the testscripts, and docs/cli.md (TestCLIDoc)")

func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"appraise": func() { os.Exit(runMain(os.Args[1:], nil)) },
		// appraise-fakegpu is appraise on a machine whose one device is
		// an NVIDIA card no probe can open (fakeGPU).
		"appraise-fakegpu": func() { os.Exit(runMain(os.Args[1:], func(e *env) { e.discover = fakeGPU })) },
		// appraise-panic crashes as a bug in appraise would, with main's
		// crash mode: the exit status is the table's, not 2.
		"appraise-panic": func() {
			setCrashMode()
			panic("appraise-panic: a crash on purpose")
		},
	})
}

// TestScripts runs the CLI transcripts in testdata/script.
func TestScripts(t *testing.T) {
	// Parallel with the browser test: one appraisal's kernels and
	// chromium's pages leave each other idle time to fill.
	t.Parallel()
	testscript.Run(t, testscript.Params{
		Dir:           "testdata/script",
		UpdateScripts: *updateScripts,
		Setup:         writeFixtures,
		Cmds: map[string]func(*testscript.TestScript, bool, []string){
			"replace": cmdReplace, "cpglob": cmdCpGlob, "signfixture": cmdSignFixture, "waitfor": cmdWaitFor,
		},
		Condition: condition,
	})
}

// TestExitCodeTableInREADME: the README's table of exit codes is the one
// --help prints (exitCodes), row for row.
func TestExitCodeTableInREADME(t *testing.T) {
	b, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(b), "\n## Exit codes\n")
	if !ok {
		t.Fatal("README has no '## Exit codes' section")
	}
	var rows []string
	for _, line := range strings.Split(section, "\n") {
		if !strings.HasPrefix(line, "|") {
			if len(rows) > 0 {
				break // the end of the table
			}
			continue // the text before it
		}
		rows = append(rows, line)
	}
	if len(rows) > 2 {
		rows = rows[2:] // the header and its rule
	}
	var want []string
	for _, c := range exitCodes {
		want = append(want, fmt.Sprintf("| %d | %s |", c.code, c.meaning))
	}
	if strings.Join(rows, "\n") != strings.Join(want, "\n") {
		t.Errorf("README exit codes:\n%s\nwant (from exitCodes):\n%s", strings.Join(rows, "\n"), strings.Join(want, "\n"))
	}
	seen := map[int]bool{}
	for _, c := range exitCodes {
		if seen[c.code] {
			t.Errorf("exit code %d has two meanings", c.code)
		}
		seen[c.code] = true
	}
}

// TestREADMETour: the README's tour is run as written. Every command of
// its block (each line that starts with "appraise ", without its comment)
// is in the software transcript, which runs them on lavapipe.
func TestREADMETour(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, tour, ok := strings.Cut(string(readme), "\n## A tour\n")
	if !ok {
		t.Fatal("README has no '## A tour' section")
	}
	_, block, ok := strings.Cut(tour, "```sh\n")
	block, _, ok2 := strings.Cut(block, "```")
	if !ok || !ok2 {
		t.Fatal("README's tour has no sh block")
	}
	script, err := os.ReadFile("testdata/script/appraise_software.txt")
	if err != nil {
		t.Fatal(err)
	}
	var n int
	for _, line := range strings.Split(block, "\n") {
		if !strings.HasPrefix(line, "appraise ") {
			continue
		}
		cmd, _, _ := strings.Cut(line, " #")
		cmd = strings.TrimSpace(cmd)
		n++
		if !strings.Contains(string(script), cmd) {
			t.Errorf("the README's tour runs %q, which appraise_software.txt does not", cmd)
		}
	}
	if n < 7 {
		t.Errorf("the README's tour has %d commands, want the tour of devices, appraise, verify, compare, plot, view, check and export", n)
	}
}

// condition answers [adapter]: whether any WebGPU adapter, software ones
// included, exists. With CI=true a missing adapter fails the script
// instead of letting it skip: CI installs lavapipe, so GPU tests must run.
// [exists:PATH] answers whether PATH exists on this machine (a fleet
// tool's directory, which a script expects absent).
func condition(cond string) (bool, error) {
	if path, ok := strings.CutPrefix(cond, "exists:"); ok {
		_, err := os.Stat(path)
		return err == nil, nil
	}
	if cond != "adapter" {
		return false, fmt.Errorf("unknown condition %q", cond)
	}
	inst, err := gpu.NewInstance()
	if err == nil {
		defer inst.Release()
		var as []gpu.AdapterInfo
		if as, err = inst.Adapters(); err == nil && len(as) > 0 {
			return true, nil
		}
	}
	if os.Getenv("CI") == "true" {
		return false, fmt.Errorf("CI=true but no WebGPU adapter (%v): install mesa-vulkan-drivers", err)
	}
	return false, nil
}

// cmdCpGlob implements "cpglob GLOB DST": it copies the one file GLOB
// names to DST, so scripts can name files whose names hold a hash.
func cmdCpGlob(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: cpglob GLOB DST")
	}
	b, err := os.ReadFile(globOne(ts, args[0]))
	ts.Check(err)
	ts.Check(os.WriteFile(ts.MkAbs(args[1]), b, 0o644))
}

func globOne(ts *testscript.TestScript, pattern string) string {
	m, err := filepath.Glob(ts.MkAbs(pattern))
	ts.Check(err)
	if len(m) != 1 {
		ts.Fatalf("%s matches %d files, want 1", pattern, len(m))
	}
	return m[0]
}

// cmdSignFixture implements "signfixture [-old] DIR": it unlocks the
// signing key as an appraisal does (unlockSigner: APPRAISE_KEY_DIR,
// APPRAISE_PASSPHRASE), writes a fixture box and card signed by it into
// DIR and records them in the key's ledger. With -old it signs instead
// with the key directory's archived (retired) key, other figures, and
// records nothing: what a thief of a retired key could sign. Scripts use
// it for reports signed by a key the script made, where the figures do
// not matter and a real appraisal would only cost time.
func cmdSignFixture(ts *testscript.TestScript, neg bool, args []string) {
	old := len(args) == 2 && args[0] == "-old"
	if neg || len(args) != 1 && !old {
		ts.Fatalf("usage: signfixture [-old] DIR")
	}
	dir := args[len(args)-1]
	e := &env{ctx: context.Background(), stdout: io.Discard, stderr: io.Discard, getenv: ts.Getenv}
	g := &globals{KeyDir: ts.Getenv("APPRAISE_KEY_DIR")}
	if old {
		pub, err := keys.LoadPublic(g.KeyDir)
		ts.Check(err)
		if len(pub.Archived) == 0 {
			ts.Fatalf("signfixture -old: no archived key")
		}
		s, err := keys.LoadArchivedSigner(g.KeyDir, pub.Archived[0].Fingerprint(), keys.Decryption{Passphrase: ts.Getenv("APPRAISE_PASSPHRASE")})
		ts.Check(err)
		ts.Check(writeSignedPair(ts.MkAbs(dir), s, "575.57.08", 2))
		return
	}
	s, err := unlockSigner(e, g)
	ts.Check(err)
	ts.Check(writeSignedPair(ts.MkAbs(dir), s, "580.159.04", 1))
	ts.Check(s.record())
}

// fakeGPU finds one NVIDIA card at 0000:00:06.0 and nothing else: a
// device for transcripts of what is refused before any probe opens it.
func fakeGPU(*gpu.Instance, bool, string) ([]appraisal.Candidate, []error, error) {
	bdf, err := pci.ParseBDF("0000:00:06.0")
	if err != nil {
		return nil, nil, err
	}
	c := appraisal.Candidate{Addr: bdf.String(), BusAddress: bdf.String(), Included: true, Reason: "a fake device",
		Adapter: gpu.AdapterInfo{VendorID: 0x10de, DeviceID: 0x2335, Name: "NVIDIA H200", Type: "discrete-gpu"},
		PCI:     &pci.Device{BDF: bdf, VendorID: 0x10de, DeviceID: 0x2335, Class: 0x030200}}
	return []appraisal.Candidate{c}, nil, nil
}

// cmdWaitFor implements "waitfor FILE REGEXP": it waits until a line of
// FILE matches REGEXP, as a background command writes it, and fails
// after five minutes.
func cmdWaitFor(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: waitfor FILE REGEXP")
	}
	re, err := regexp.Compile("(?m)" + args[1])
	ts.Check(err)
	for end := time.Now().Add(5 * time.Minute); time.Now().Before(end); time.Sleep(50 * time.Millisecond) {
		if b, err := os.ReadFile(ts.MkAbs(args[0])); err == nil && re.Match(b) {
			return
		}
	}
	ts.Fatalf("%s: no line matches %s after five minutes", args[0], args[1])
}

// cmdReplace implements "replace GLOB REGEXP REPLACEMENT": it replaces the
// first match in the one file GLOB names.
func cmdReplace(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 3 {
		ts.Fatalf("usage: replace GLOB REGEXP REPLACEMENT")
	}
	file := globOne(ts, args[0])
	re := regexp.MustCompile(args[1])
	b, err := os.ReadFile(file)
	ts.Check(err)
	loc := re.FindIndex(b)
	if loc == nil {
		ts.Fatalf("%s: no match for %s", file, args[1])
	}
	out := append(append(append([]byte{}, b[:loc[0]]...), args[2]...), b[loc[1]:]...)
	ts.Check(os.WriteFile(file, out, 0o644))
}

package deploy_test

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// stubs writes a stand-in for appraise (it records its arguments, prints
// $STUB_OUTPUT and exits with $STUB_RC, after $STUB_SLEEP seconds) and one
// for scontrol (it records its arguments and answers `show node` with
// $STUB_REASON), and returns their directory: what is tested here is how
// the wrappers map `appraise check`'s exit status to a node state.
func stubs(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	files := map[string]string{
		"appraise": `#!/bin/sh
printf '%s\n' "$*" >"$STUB_DIR/appraise.args"
[ -z "$STUB_SLEEP" ] || sleep "$STUB_SLEEP"
[ -z "$STUB_OUTPUT" ] || printf '%s\n' "$STUB_OUTPUT"
exit "$STUB_RC"
`,
		"scontrol": `#!/bin/sh
printf '%s\n' "$*" >>"$STUB_DIR/scontrol.log"
[ "$1" != show ] || printf 'NodeName=%s Arch=x86_64 CoresPerSocket=64\n   Reason=%s\n' "$3" "$STUB_REASON"
`,
	}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// run runs a command and returns its stdout and exit status.
func run(t *testing.T, cmd *exec.Cmd) (string, int) {
	t.Helper()
	out, err := cmd.Output()
	var exit *exec.ExitError
	switch {
	case err == nil:
		return string(out), 0
	case errors.As(err, &exit):
		return string(out), exit.ExitCode()
	default:
		t.Fatalf("%s: %v", cmd, err)
		return "", -1
	}
}

func readOr(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(name)
	if errors.Is(err, os.ErrNotExist) {
		return ""
	}
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestHealthCheckProgramDrainsOnlyDegradedNodes(t *testing.T) {
	const finding = "software-0: fp32 vector throughput fell 40% while bandwidth held"
	for _, tc := range []struct {
		name   string
		env    []string
		code   int
		line   string
		update string // the scontrol update call, "" for none
	}{
		{"ok", []string{"STUB_RC=0", "STUB_OUTPUT=software-0: as signed"}, 0,
			"appraise: OK: software-0: as signed", ""},
		{"ok resumes its own drain", []string{"STUB_RC=0", "STUB_OUTPUT=x", "STUB_REASON=appraise: degraded: y [root@2026-12-01T10:00:00]"}, 0,
			"appraise: OK: x", "update NodeName=gpu-node-0 State=RESUME"},
		{"ok leaves an operator's drain", []string{"STUB_RC=0", "STUB_OUTPUT=x", "STUB_REASON=replacing fan [ops@2026-12-01T10:00:00]"}, 0,
			"appraise: OK: x", ""},
		{"degraded drains", []string{"STUB_RC=1", "STUB_OUTPUT=" + finding + "\nsecond finding"}, 1,
			"appraise: DEGRADED: " + finding, "update NodeName=gpu-node-0 State=DRAIN Reason=appraise: degraded: " + finding},
		{"unknown leaves the node", []string{"STUB_RC=2", "STUB_OUTPUT=no card for software-0"}, 2,
			"appraise: UNKNOWN: no card for software-0", ""},
		{"unknown drains when asked", []string{"STUB_RC=2", "STUB_OUTPUT=no card", "APPRAISE_DRAIN_ON_UNKNOWN=1"}, 2,
			"appraise: UNKNOWN: no card", "update NodeName=gpu-node-0 State=DRAIN Reason=appraise: unknown: no card"},
		{"another status is unknown", []string{"STUB_RC=7", "STUB_OUTPUT=appraise: error: wrong passphrase"}, 2,
			"appraise: UNKNOWN: appraise check exited 7: appraise: error: wrong passphrase", ""},
		{"silence is unknown", []string{"STUB_RC=1"}, 1,
			"appraise: DEGRADED: appraise check printed nothing", "update NodeName=gpu-node-0 State=DRAIN Reason=appraise: degraded: appraise check printed nothing"},
		{"too slow is unknown", []string{"STUB_RC=0", "STUB_SLEEP=30", "APPRAISE_TIMEOUT=1"}, 2,
			"appraise: UNKNOWN: appraise check took longer than 1s", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := stubs(t)
			cmd := exec.Command("slurm/appraise-healthcheck")
			cmd.Env = append(os.Environ(), "STUB_DIR="+dir, "APPRAISE="+filepath.Join(dir, "appraise"),
				"SCONTROL="+filepath.Join(dir, "scontrol"), "SLURMD_NODENAME=gpu-node-0",
				"STUB_REASON=", "STUB_SLEEP=", "STUB_OUTPUT=", "APPRAISE_DRAIN_ON_UNKNOWN=", "APPRAISE_TIMEOUT=")
			cmd.Env = append(cmd.Env, tc.env...)
			out, code := run(t, cmd)
			if code != tc.code || out != tc.line+"\n" {
				t.Errorf("exit %d, printed %q; want exit %d, %q", code, out, tc.code, tc.line)
			}
			if got := readOr(t, filepath.Join(dir, "appraise.args")); got != "check --against /var/lib/appraise/cards --budget 30s\n" {
				t.Errorf("appraise ran with %q", got)
			}
			var updates []string
			for _, l := range strings.Split(readOr(t, filepath.Join(dir, "scontrol.log")), "\n") {
				if strings.HasPrefix(l, "update ") {
					updates = append(updates, l)
				}
			}
			if tc.update == "" && len(updates) > 0 || tc.update != "" && (len(updates) != 1 || updates[0] != tc.update) {
				t.Errorf("scontrol %q, want %q", updates, tc.update)
			}
		})
	}
}

// The NHC check, loaded as NHC loads it, with NHC's die, log and dbg:
// die (a failed check) is what makes NHC mark the node offline. NHC is not
// packaged by Debian, so its two functions the check calls stand in for it
// here, with NHC's signatures.
func TestNHCCheckFailsOnlyDegradedNodes(t *testing.T) {
	bash := requireTool(t, "bash")
	harness := `die() { local rc=$1; shift; echo "die $rc $*"; return 0; }
log() { echo "log $*"; }
dbg() { :; }
. slurm/appraise.nhc
check_appraise "$@"
echo "returned $?"
`
	const defaults = "check --against /var/lib/appraise/cards --budget 20s\n"
	for _, tc := range []struct {
		name string
		args []string
		env  []string
		want string
		ran  string // appraise's arguments, "" where it must not run
	}{
		{"ok", nil, []string{"STUB_RC=0", "STUB_OUTPUT=fine"}, "returned 0\n", defaults},
		{"degraded", nil, []string{"STUB_RC=1", "STUB_OUTPUT=software-0: slower\nmore"},
			"log software-0: slower\nmore\ndie 1 check_appraise:  GPU degraded:  software-0: slower\nreturned 1\n", defaults},
		{"unknown passes", nil, []string{"STUB_RC=2", "STUB_OUTPUT=no card"},
			"log check_appraise:  result unknown, node left as it is:  no card\nreturned 0\n", defaults},
		{"unknown fails with -u", []string{"-u"}, []string{"STUB_RC=2", "STUB_OUTPUT=no card"},
			"die 1 check_appraise:  result unknown:  no card\nreturned 1\n", defaults},
		{"another status is unknown", nil, []string{"STUB_RC=7", "STUB_OUTPUT=appraise: error: wrong passphrase"},
			"log check_appraise:  result unknown, node left as it is:  appraise check exited 7:  appraise: error: wrong passphrase\nreturned 0\n", defaults},
		{"missing binary", nil, []string{"APPRAISE_BIN=/nonexistent/appraise"},
			"log check_appraise:  result unknown, node left as it is:  /nonexistent/appraise not found or not runnable\nreturned 0\n", ""},
		{"options", []string{"-c", "/srv/cards", "-b", "10s"}, []string{"STUB_RC=0"}, "returned 0\n",
			"check --against /srv/cards --budget 10s\n"},
		{"bad option", []string{"-x"}, []string{"STUB_RC=0"}, "die 1 check_appraise:  Syntax error:  Invalid option:  -x\nreturned 1\n", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := stubs(t)
			cmd := exec.Command(bash, append([]string{"-c", harness, "nhc"}, tc.args...)...)
			cmd.Env = append(os.Environ(), "STUB_DIR="+dir, "APPRAISE_BIN="+filepath.Join(dir, "appraise"), "STUB_OUTPUT=", "STUB_SLEEP=")
			cmd.Env = append(cmd.Env, tc.env...)
			out, code := run(t, cmd)
			if code != 0 || out != tc.want {
				t.Errorf("exit %d, printed\n%s\nwant\n%s", code, out, tc.want)
			}
			if got := readOr(t, filepath.Join(dir, "appraise.args")); got != tc.ran {
				t.Errorf("appraise ran with %q, want %q", got, tc.ran)
			}
		})
	}
}

// Package tooltest finds the real fleet tools that the export tests run
// against: nfd-worker and cosign, built from the Go module proxy at pinned
// versions by scripts/fleet-tools, and Debian's promtool and
// prometheus-node-exporter. A tool that cannot be had fails the test when
// CI=true and skips it elsewhere.
package tooltest

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// Built returns the path of a tool scripts/fleet-tools builds ("nfd-worker",
// "cosign"), building it on first use (minutes; later calls find it in
// ~/.cache/appraise/tools).
func Built(t testing.TB, name string) string {
	t.Helper()
	script := filepath.Join(repoRoot(t), "scripts", "fleet-tools")
	var stderr bytes.Buffer
	cmd := exec.Command(script, name)
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		unavailable(t, "%s: cannot build %s: %v\n%s", script, name, err, stderr.String())
	}
	return strings.TrimSpace(string(out))
}

// Installed returns the path of an installed program (scripts/install-deps
// installs it from Debian's archive).
func Installed(t testing.TB, name string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		unavailable(t, "%s is not installed (scripts/install-deps installs it): %v", name, err)
	}
	return p
}

// unavailable fails under CI=true, where every tool must be there, and
// skips elsewhere.
func unavailable(t testing.TB, format string, args ...any) {
	t.Helper()
	if os.Getenv("CI") == "true" {
		t.Fatalf(format, args...)
	}
	t.Skipf(format, args...)
}

// repoRoot is the directory of the module this package belongs to.
func repoRoot(t testing.TB) string {
	t.Helper()
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		t.Fatal("tooltest: no caller information")
	}
	return filepath.Join(filepath.Dir(file), "..", "..", "..")
}

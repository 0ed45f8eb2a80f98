// Package tooltest finds the fleet tools the export tests run against; a
// missing tool fails the test when CI=true and skips it elsewhere.
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

// Built returns the path of a tool built by scripts/fleet-tools, e.g. "cosign".
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

// Installed returns the path of a program on $PATH.
func Installed(t testing.TB, name string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		unavailable(t, "%s is not installed (scripts/install-deps installs it): %v", name, err)
	}
	return p
}

func unavailable(t testing.TB, format string, args ...any) {
	t.Helper()
	if os.Getenv("CI") == "true" {
		t.Fatalf(format, args...)
	}
	t.Skipf(format, args...)
}

func repoRoot(t testing.TB) string {
	t.Helper()
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		t.Fatal("tooltest: no caller information")
	}
	return filepath.Join(filepath.Dir(file), "..", "..", "..")
}

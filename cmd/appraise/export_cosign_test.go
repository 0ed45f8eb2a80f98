package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/everycycle/appraise/internal/export"
	"github.com/everycycle/appraise/internal/export/tooltest"
)

// TestExportInTotoCosign runs docs/fleets.md's attestation steps end to end:
// a key from 'keys init', its PEM from 'keys export-public --pem', the
// bundle from 'export intoto' of a committed example card pinned to its
// own key, and the real cosign (scripts/fleet-tools builds the pinned
// version) verifying it offline.
func TestExportInTotoCosign(t *testing.T) {
	cosign := tooltest.Built(t, "cosign")
	dir := t.TempDir()
	runDir := filepath.Join(dir, "run")
	if err := copyDir("../../docs/archive/2026-11/example-h200", runDir); err != nil {
		t.Fatal(err)
	}
	card := filepath.Join(runDir, "card-6db1659cde1985c6.appraisal.json")
	appraise := func(args ...string) string {
		t.Helper()
		var stdout, stderr bytes.Buffer
		getenv := func(k string) string {
			if k == "APPRAISE_PASSPHRASE" {
				return "fleet"
			}
			return ""
		}
		e := &env{ctx: context.Background(), stdout: &stdout, stderr: &stderr, getenv: getenv}
		args = append([]string{"--key-dir", filepath.Join(dir, "keys")}, args...)
		if code := run(e.ctx, args, e); code != 0 {
			t.Fatalf("appraise %s: exit %d\n%s", strings.Join(args, " "), code, stderr.String())
		}
		return stdout.String()
	}
	appraise("keys", "init", "--tenant", "fleet")
	pem := filepath.Join(dir, "fleet.pem")
	if err := os.WriteFile(pem, []byte(appraise("keys", "export-public", "--pem")), 0o644); err != nil {
		t.Fatal(err)
	}
	bundle := strings.TrimSpace(appraise("export", "intoto", card, "--trust", filepath.Join(runDir, "pub.json")))
	if bundle != filepath.Join(runDir, "card-6db1659cde1985c6.sigstore.json") {
		t.Fatalf("bundle written to %q", bundle)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, cosign, "verify-blob-attestation", "--bundle", bundle, "--key", pem,
		"--type", export.PredicateType, "--insecure-ignore-tlog", card)
	cmd.Env = append(os.Environ(), "HOME="+t.TempDir())
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "Verified OK") {
		t.Fatalf("cosign: %v\n%s", err, out)
	}
}

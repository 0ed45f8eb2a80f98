package schema_test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestIndependentVerifier checks reports with a verifier that shares no
// code with appraise (scripts/verify-independent.mjs, RFC 8785 + RFC 8032
// written from the format's description) and shows it rejects an edit.
func TestIndependentVerifier(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed: the independent verifier is a Node.js script")
	}
	card, box, err := signedPair()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	cardPath, boxPath := filepath.Join(dir, "card.json"), filepath.Join(dir, "box.json")
	write := func(p string, b []byte) {
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(cardPath, card)
	write(boxPath, box)
	run := func() (string, error) {
		out, err := exec.Command(node, "../scripts/verify-independent.mjs", cardPath, boxPath).CombinedOutput()
		return string(out), err
	}
	if out, err := run(); err != nil || !strings.HasPrefix(out, "ok:") {
		t.Fatalf("independent verifier rejected a valid pair: %v\n%s", err, out)
	}
	write(cardPath, bytes.Replace(card, []byte(`"median": 810000000000`), []byte(`"median": 810000000001`), 1))
	if out, err := run(); err == nil {
		t.Fatalf("independent verifier accepted an edited card:\n%s", out)
	}
	write(cardPath, card)
	write(boxPath, bytes.Replace(box, []byte(`"astra"`), []byte(`"astro"`), 1))
	if out, err := run(); err == nil {
		t.Fatalf("independent verifier accepted an edited box:\n%s", out)
	}
}

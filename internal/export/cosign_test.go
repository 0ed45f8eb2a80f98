package export

import (
	"context"
	"crypto/ed25519"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/everycycle/appraise/internal/export/tooltest"
)

// cosignVerify runs cosign verify-blob-attestation offline on a bundle,
// against a PEM key, for a card file, and returns its output and error.
func cosignVerify(t *testing.T, cosign, bundle, keyPEM, predicateType, card string) (string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, cosign, "verify-blob-attestation", "--bundle", bundle, "--key", keyPEM,
		"--type", predicateType, "--insecure-ignore-tlog", card)
	// Its own home: cosign finds no earlier Sigstore state and leaves none.
	cmd.Env = append(os.Environ(), "HOME="+t.TempDir())
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// TestCosignVerifiesOurBundles has the real cosign (scripts/fleet-tools
// builds the pinned version) verify our bundle of every example card, and
// refuse a changed card, another key and another predicate type.
func TestCosignVerifiesOurBundles(t *testing.T) {
	cosign := tooltest.Built(t, "cosign")
	dir := t.TempDir()
	s, other := testSigner(t), testSigner(t)
	keyPEM, otherPEM := filepath.Join(dir, "key.pem"), filepath.Join(dir, "other.pem")
	for path, k := range map[string]ed25519.PublicKey{keyPEM: s.Public(), otherPEM: other.Public()} {
		b, err := PublicKeyPEM(k)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for i, p := range allExamples(t) {
		c := exampleCard(t, p)
		bundle, err := InToto(c, s)
		if err != nil {
			t.Fatal(err)
		}
		sub := filepath.Join(dir, strings.Repeat("d", i+1))
		if err := os.Mkdir(sub, 0o755); err != nil {
			t.Fatal(err)
		}
		card, bpath := filepath.Join(sub, filepath.Base(p)), filepath.Join(sub, "card.sigstore.json")
		if err := os.WriteFile(card, c.File, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := WriteFile(bpath, bundle); err != nil {
			t.Fatal(err)
		}
		out, err := cosignVerify(t, cosign, bpath, keyPEM, PredicateType, card)
		if err != nil || !strings.Contains(out, "Verified OK") {
			t.Fatalf("%s: cosign: %v\n%s", p, err, out)
		}
		if i > 0 {
			continue // the refusals once are enough
		}
		if out, err := cosignVerify(t, cosign, bpath, otherPEM, PredicateType, card); err == nil || strings.Contains(out, "Verified OK") {
			t.Errorf("cosign verified with another key:\n%s", out)
		}
		if out, err := cosignVerify(t, cosign, bpath, keyPEM, "https://slsa.dev/provenance/v1", card); err == nil || !strings.Contains(out, "invalid predicate type") {
			t.Errorf("cosign verified another predicate type:\n%s", out)
		}
		tampered := filepath.Join(sub, "tampered.json")
		// One figure changed: its first digit gains a 9 before it.
		changed := []byte(strings.Replace(string(c.File), `"median": `, `"median": 9`, 1))
		if string(changed) == string(c.File) {
			t.Fatal("fixture: nothing changed")
		}
		if err := os.WriteFile(tampered, changed, 0o644); err != nil {
			t.Fatal(err)
		}
		if out, err := cosignVerify(t, cosign, bpath, keyPEM, PredicateType, tampered); err == nil || !strings.Contains(out, "digests do not match") {
			t.Errorf("cosign verified a changed card:\n%s", out)
		}
	}
}

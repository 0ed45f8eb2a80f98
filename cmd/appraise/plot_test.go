package main

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"crypto/sha256"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/everycycle/appraise/schema"
)

// TestPlotExitCodes checks what the transcript cannot: the exit codes of
// a plotted, an unplottable and a tampered card.
func TestPlotExitCodes(t *testing.T) {
	dir := t.TempDir()
	seed := sha256.Sum256([]byte("fixture"))
	s := fixtureSigner{ed25519.NewKeyFromSeed(seed[:])}
	card := func(name string, p schema.CardPayload) string {
		b, err := schema.SignCard(p, s)
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	hash := strings.Repeat("0", 64)
	good := card("good.appraisal.json", fixturePlotCard(hash))
	bare := card("bare.appraisal.json", fixtureCard(hash, "580.159.04", 1))
	b, err := os.ReadFile(good)
	if err != nil {
		t.Fatal(err)
	}
	tampered := filepath.Join(dir, "tampered.appraisal.json")
	if err := os.WriteFile(tampered, bytes.Replace(b, []byte(`"ratio": 0.96`), []byte(`"ratio": 0.99`), 1), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		card string
		code int
		svg  string
	}{
		{good, exitOK, filepath.Join(dir, "good.svg")},
		{bare, exitError, filepath.Join(dir, "bare.svg")},
		{tampered, exitVerify, filepath.Join(dir, "tampered.svg")},
	} {
		var stdout, stderr bytes.Buffer
		ctx := context.Background()
		code := run(ctx, []string{"plot", c.card}, &env{ctx: ctx, stdout: &stdout, stderr: &stderr, getenv: func(string) string { return "" }})
		if code != c.code {
			t.Errorf("plot %s: exit code %d, want %d; stderr:\n%s", filepath.Base(c.card), code, c.code, stderr.String())
		}
		_, err := os.Stat(c.svg)
		if exists := err == nil; exists != (c.code == exitOK) {
			t.Errorf("plot %s: %s exists: %v", filepath.Base(c.card), c.svg, exists)
		}
	}
}

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

	"github.com/everycycle/appraise/internal/render/figures"
	"github.com/everycycle/appraise/schema"
)

// TestCompareNotACard checks what compare says, and its exit code, for
// each kind of file that is not a card report.
func TestCompareNotACard(t *testing.T) {
	dir := t.TempDir()
	seed := sha256.Sum256([]byte("fixture"))
	s := fixtureSigner{ed25519.NewKeyFromSeed(seed[:])}
	box, _, err := schema.SignBox(fixtureBox("580.159.04"), s)
	if err != nil {
		t.Fatal(err)
	}
	card, err := schema.SignCard(fixtureCard(strings.Repeat("0", 64), "580.159.04", 1), s)
	if err != nil {
		t.Fatal(err)
	}
	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	good := write("card.json", card)
	for _, c := range []struct {
		name, data, want string
		code             int
	}{
		{"box.json", string(box), "is a box report", exitUsage},
		{"pub.json", `{"format": "appraise-public-key", "version": "1"}`, "is a public key", exitUsage},
		{"key.json", `{"format": "appraise-tenant-key", "version": "1"}`, "is a tenant key file", exitUsage},
		{"rot.json", `{"payload": {"statement": "appraise-key-rotation"}, "signatures": []}`, "is a key-rotation statement", exitUsage},
		{"schema.json", `{"$schema": "https://json-schema.org/draft/2020-12/schema"}`, "is a JSON Schema", exitUsage},
		{"list.json", `[1, 2]`, "is JSON but not an object", exitUsage},
		{"other.json", `{"a": 1}`, "is JSON that is no report appraise writes", exitUsage},
		{"empty.json", "\n", "is empty", exitVerify},
		{"cut.json", string(card[:len(card)/2]), "is not JSON (", exitVerify},
		{"reindented.json", strings.Replace(string(card), `"memory"`, `"memory" `, 1) + " ", "", exitOK},
	} {
		var stdout, stderr bytes.Buffer
		ctx := context.Background()
		code := run(ctx, []string{"compare", write(c.name, []byte(c.data)), good}, &env{ctx: ctx, stdout: &stdout, stderr: &stderr, getenv: func(string) string { return "" }})
		if code != c.code || !strings.Contains(stderr.String(), c.want) {
			t.Errorf("compare %s: exit %d, want %d; stderr %q, want %q", c.name, code, c.code, stderr.String(), c.want)
		}
		if strings.Contains(stderr.String(), "Go ") || strings.Contains(stderr.String(), "unmarshal") {
			t.Errorf("compare %s: stderr names Go internals: %s", c.name, stderr.String())
		}
	}
}

// TestDeltaUnits checks the table's delta column in the appraisal
// table's units.
func TestDeltaUnits(t *testing.T) {
	p := func(v float64) *float64 { return &v }
	for _, c := range []struct {
		d    figures.Delta
		want string
	}{
		{figures.Delta{Unit: "bytes/s", A: p(4.99e10), B: p(5.49e10), Relative: p(0.1)}, "+5.0 GB/s (+10.0%)"},
		{figures.Delta{Unit: "ops/s", A: p(64.8e12), B: p(64.7e12), Relative: p(-0.0016)}, "-100.0 GOP/s (-0.2%)"},
		{figures.Delta{Unit: "s", A: p(26e-6), B: p(18e-6), Relative: p(-0.31)}, "-8.0 µs (-31.0%)"},
		{figures.Delta{Unit: "ratio", A: p(0.8681), B: p(0.8643), Relative: p(-0.0044)}, "-0.0038 ratio (-0.4%)"},
		{figures.Delta{Unit: "words", A: p(0), B: p(3)}, "+3 words"},
		{figures.Delta{Unit: "bytes", A: p(1 << 30), B: p(1 << 30), Relative: p(0)}, "0 (+0.0%)"},
		{figures.Delta{Unit: "bytes/s", A: p(1)}, "-"},
	} {
		if got := delta(c.d); got != c.want {
			t.Errorf("delta(%s %v→%v) = %q, want %q", c.d.Unit, c.d.A, c.d.B, got, c.want)
		}
	}
}

package export

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/everycycle/appraise/keys"
	"github.com/everycycle/appraise/schema"
)

// exampleCard reads a committed example card, which verifies against its
// directory's public key (the command's part; checked here too, so the
// tests feed only what the command would).
func exampleCard(t *testing.T, path string) Card {
	t.Helper()
	path = filepath.Join("..", "..", path)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	p, v, err := schema.ReadCard(data)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	pins, _ := filepath.Glob(filepath.Join(filepath.Dir(path), "p*.json"))
	if len(pins) != 1 {
		t.Fatalf("%s: want one public key beside it, have %v", path, pins)
	}
	pb, err := os.ReadFile(pins[0])
	if err != nil {
		t.Fatal(err)
	}
	pin, err := keys.ParsePublicKeyFile(pb)
	if err != nil {
		t.Fatal(err)
	}
	if !pin.PublicKey.Equal(mustKey(t, v)) {
		t.Fatalf("%s is not signed by %s", path, pins[0])
	}
	return Card{Path: path, File: data, Payload: p, Tenant: v.Signature.TenantIdentity, KeyFingerprint: keys.Fingerprint(v.PublicKey)}
}

func mustKey(t *testing.T, v *schema.Verified) *keys.PublicKey {
	t.Helper()
	k, err := keys.NewPublicKey(v.PublicKey)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// Example cards: a software device, one H200, two H200s of one run.
const (
	softwareCard = "docs/example/card-software-0.appraisal.json"
	h200Card     = "docs/archive/2026-11/example-h200-crosscheck/card-6db1659cde1985c6.appraisal.json"
	h200x2Card0  = "docs/archive/2026-11/example-h200x2/card-6db1659cde1985c6-0000-00-06.0.appraisal.json"
	h200x2Card1  = "docs/archive/2026-11/example-h200x2/card-6db1659cde1985c6-0000-00-07.0.appraisal.json"
)

// allExamples is every committed example card.
func allExamples(t *testing.T) []string {
	t.Helper()
	m, err := filepath.Glob("../../docs/example*/card-*.appraisal.json")
	old, err2 := filepath.Glob("../../docs/archive/*/example*/card-*.appraisal.json")
	m = append(m, old...)
	if err != nil || err2 != nil || len(m) < 6 {
		t.Fatalf("example cards: %v %v %v", m, err, err2)
	}
	for i := range m {
		m[i], _ = filepath.Rel("../..", m[i])
	}
	return m
}

// probedAt parses a card's probed time.
func probedAt(t *testing.T, c Card) time.Time {
	t.Helper()
	at, err := c.ProbedAt()
	if err != nil {
		t.Fatal(err)
	}
	return at
}

func TestDevicesNewestPerDeviceInBusOrder(t *testing.T) {
	a, b := exampleCard(t, h200x2Card1), exampleCard(t, h200x2Card0)
	// The crosscheck H200 sat at the same bus address as b, later.
	later := exampleCard(t, h200Card)
	if !probedAt(t, later).After(probedAt(t, b)) || later.Payload.Capability.Identity.BusAddress != b.Payload.Capability.Identity.BusAddress {
		t.Fatal("fixture: want a later card of the same bus address")
	}
	got, err := Devices([]Card{a, b, later}, false)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].Path != later.Path || got[1].Path != a.Path {
		t.Fatalf("got %v, want [%s %s]", paths(got), later.Path, a.Path)
	}
}

func TestDevicesRefusesSoftwareUnlessAsked(t *testing.T) {
	sw := exampleCard(t, softwareCard)
	if _, err := Devices([]Card{sw}, false); !errorsIs(err, ErrSoftwareCard) {
		t.Fatalf("err = %v, want ErrSoftwareCard", err)
	}
	got, err := Devices([]Card{sw}, true)
	if err != nil || len(got) != 1 {
		t.Fatalf("got %v, %v", paths(got), err)
	}
	if _, err := Devices(nil, true); err == nil {
		t.Fatal("no cards: want an error")
	}
}

func paths(cs []Card) []string {
	var out []string
	for _, c := range cs {
		out = append(out, c.Path)
	}
	return out
}

package keys

import (
	"bytes"
	"errors"
	"strings"
	"testing"
	"time"
)

func TestPublicKeyStringRoundTrip(t *testing.T) {
	s, err := GenerateSigner("acme")
	if err != nil {
		t.Fatal(err)
	}
	text := s.PublicKey().String()
	if len(text) != 44 || !strings.HasSuffix(text, "=") {
		t.Errorf("String() = %q, want 44 characters of padded base64", text)
	}
	k, err := ParsePublicKey(text)
	if err != nil {
		t.Fatalf("ParsePublicKey: %v", err)
	}
	if k.String() != text || !bytes.Equal(k.Ed25519(), s.Public()) || !k.Equal(s.PublicKey()) {
		t.Errorf("round trip gave %s", k)
	}
	if fp := k.Fingerprint(); len(fp) != 16 || fp != Fingerprint(s.Public()) {
		t.Errorf("Fingerprint() = %q", fp)
	}
	for _, bad := range []string{"", text[:43], strings.TrimRight(text, "="), text + "\n", " " + text,
		strings.NewReplacer("+", "-", "/", "_").Replace(text) + "x", "AAAA"} {
		if _, err := ParsePublicKey(bad); err == nil {
			t.Errorf("ParsePublicKey(%q) accepted", bad)
		}
	}
}

func TestParsePublicKeyFile(t *testing.T) {
	s, err := GenerateSigner("acme")
	if err != nil {
		t.Fatal(err)
	}
	created := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	info := &KeyInfo{Tenant: "acme", PublicKey: s.PublicKey(), CreatedAt: created}
	exported, err := info.ExportPublic()
	if err != nil {
		t.Fatal(err)
	}
	got, err := ParsePublicKeyFile(exported)
	if err != nil {
		t.Fatalf("ParsePublicKeyFile(export): %v\n%s", err, exported)
	}
	if got.Tenant != "acme" || !got.PublicKey.Equal(s.PublicKey()) || !got.CreatedAt.Equal(created) {
		t.Errorf("export round trip = %+v", got)
	}
	bare, err := ParsePublicKeyFile([]byte(s.PublicKey().String() + "\n"))
	if err != nil || !bare.PublicKey.Equal(s.PublicKey()) || bare.Tenant != "" {
		t.Errorf("bare line: %+v, %v", bare, err)
	}
	for name, b := range map[string][]byte{
		"unknown field":     bytes.Replace(exported, []byte(`"tenant"`), []byte(`"x": 1, "tenant"`), 1),
		"wrong fingerprint": bytes.Replace(exported, []byte(info.Fingerprint()), []byte("0000000000000000"), 1),
		"wrong format":      bytes.Replace(exported, []byte(publicFormat), []byte("other"), 1),
		"two keys":          []byte(s.PublicKey().String() + "\n" + s.PublicKey().String()),
		"trailing json":     append(bytes.Clone(exported), '}'),
	} {
		if _, err := ParsePublicKeyFile(b); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

func TestGenerateSignerRejectsBadTenant(t *testing.T) {
	if _, err := GenerateSigner(""); !errors.Is(err, ErrInvalidTenant) {
		t.Errorf("err = %v", err)
	}
}

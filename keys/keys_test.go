package keys

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"filippo.io/age"
)

// pass is a passphrase Encryption with cheap scrypt.
func pass(p string) Encryption {
	return Encryption{Passphrase: p, ScryptWorkFactor: 4}
}

// initKey creates a passphrase-protected key for "acme" in a new directory.
func initKey(t *testing.T, passphrase string) (string, *KeyInfo) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "keys")
	info, err := Init(dir, "acme", pass(passphrase))
	if err != nil {
		t.Fatalf("Init: %v", err)
	}
	return dir, info
}

func TestInitUnlockSignVerify(t *testing.T) {
	dir, info := initKey(t, "hunter22")
	if info.Tenant != "acme" || info.Protection != ProtectionPassphrase {
		t.Errorf("info = %+v", info)
	}
	for _, d := range []string{dir, filepath.Join(dir, archiveDirName), filepath.Join(dir, rotationsDirName)} {
		if fi, err := os.Stat(d); err != nil || fi.Mode().Perm() != 0o700 {
			t.Errorf("%s: mode %v, err %v; want 0700", d, fi.Mode().Perm(), err)
		}
	}
	if fi, err := os.Stat(filepath.Join(dir, keyFileName)); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("key.json: mode %v, err %v; want 0600", fi.Mode().Perm(), err)
	}
	s, err := LoadSigner(dir, Decryption{Passphrase: "hunter22"})
	if err != nil {
		t.Fatalf("LoadSigner: %v", err)
	}
	msg := []byte("measured bytes")
	sig := s.Sign(msg)
	if !Verify(info.PublicKey.Ed25519(), msg, sig) || !Verify(s.Public(), msg, sig) {
		t.Error("signature does not verify")
	}
	if Verify(s.Public(), []byte("other bytes"), sig) || Verify(s.Public()[:31], msg, sig) {
		t.Error("Verify accepted a wrong message or a short key")
	}
	if s.Tenant() != "acme" || !s.PublicKey().Equal(info.PublicKey) {
		t.Errorf("signer is %s %s, want acme %s", s.Tenant(), s.PublicKey(), info.PublicKey)
	}
	pub, err := LoadPublic(dir)
	if err != nil {
		t.Fatalf("LoadPublic: %v", err)
	}
	if !pub.Current.PublicKey.Equal(info.PublicKey) || len(pub.Archived) != 0 || len(pub.Rotations) != 0 {
		t.Errorf("LoadPublic = %+v", pub)
	}
}

func TestPrivateKeyNeverInClear(t *testing.T) {
	dir, _ := initKey(t, "hunter22")
	s, err := LoadSigner(dir, Decryption{Passphrase: "hunter22"})
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, keyFileName))
	if err != nil {
		t.Fatal(err)
	}
	seed := s.priv.Seed()
	if bytes.Contains(b, seed) || bytes.Contains(b, []byte(jsonString(t, seed))) {
		t.Error("key.json contains the seed in clear")
	}
}

// jsonString returns the base64 form encoding/json gives b.
func jsonString(t *testing.T, b []byte) string {
	j, err := json.Marshal(b)
	if err != nil {
		t.Fatal(err)
	}
	return strings.Trim(string(j), `"`)
}

func TestWrongPassphrase(t *testing.T) {
	dir, _ := initKey(t, "hunter22")
	_, err := LoadSigner(dir, Decryption{Passphrase: "hunter23"})
	if !errors.Is(err, ErrWrongPassphrase) {
		t.Errorf("err = %v, want ErrWrongPassphrase", err)
	}
	id, err := age.GenerateX25519Identity()
	if err != nil {
		t.Fatal(err)
	}
	_, err = LoadSigner(dir, Decryption{Identities: []age.Identity{id}})
	if !errors.Is(err, ErrPassphraseProtected) {
		t.Errorf("identity for a passphrase key: err = %v, want ErrPassphraseProtected", err)
	}
	if _, err = LoadSigner(dir, Decryption{}); !errors.Is(err, ErrNoPassphrase) {
		t.Errorf("no decryption: err = %v, want ErrNoPassphrase", err)
	}
}

func TestEmptyPassphraseRefused(t *testing.T) {
	dir := t.TempDir()
	if _, err := Init(dir, "acme", pass("")); !errors.Is(err, ErrEmptyPassphrase) {
		t.Errorf("Init with empty passphrase: err = %v, want ErrEmptyPassphrase", err)
	}
	if _, err := os.Stat(filepath.Join(dir, keyFileName)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("key.json written despite the error: %v", err)
	}
}

func TestInsecurePermissionsRefused(t *testing.T) {
	dir, _ := initKey(t, "hunter22")
	path := filepath.Join(dir, keyFileName)
	if err := os.Chmod(path, 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := LoadSigner(dir, Decryption{Passphrase: "hunter22"})
	if !errors.Is(err, ErrInsecurePermissions) || !strings.Contains(err.Error(), "chmod 600 "+path) {
		t.Errorf("LoadSigner: err = %v, want ErrInsecurePermissions with a chmod hint", err)
	}
	if _, err := LoadPublic(dir); !errors.Is(err, ErrInsecurePermissions) {
		t.Errorf("LoadPublic: err = %v, want ErrInsecurePermissions", err)
	}
}

func TestInitRefusesOverwrite(t *testing.T) {
	dir, info := initKey(t, "hunter22")
	if _, err := Init(dir, "acme", pass("other")); !errors.Is(err, ErrKeyExists) {
		t.Errorf("second Init: err = %v, want ErrKeyExists", err)
	}
	pub, err := LoadPublic(dir)
	if err != nil || !pub.Current.PublicKey.Equal(info.PublicKey) {
		t.Errorf("the first key was replaced: %v", err)
	}
}

func TestTenantValidation(t *testing.T) {
	for _, ok := range []string{"acme", "a", "0day", "acme-gpu.lab_2", strings.Repeat("a", 64)} {
		if err := ValidateTenant(ok); err != nil {
			t.Errorf("ValidateTenant(%q) = %v", ok, err)
		}
	}
	for _, bad := range []string{"", "Acme", "-acme", ".acme", "ac me", "acme/x", "é", "a\n", strings.Repeat("a", 65)} {
		err := ValidateTenant(bad)
		if !errors.Is(err, ErrInvalidTenant) || !strings.Contains(err.Error(), tenantPattern.String()) {
			t.Errorf("ValidateTenant(%q) = %v, want ErrInvalidTenant naming the pattern", bad, err)
		}
	}
	if _, err := Init(t.TempDir(), "Bad Tenant", pass("x")); !errors.Is(err, ErrInvalidTenant) {
		t.Errorf("Init with bad tenant: err = %v", err)
	}
}

func TestRecipientMode(t *testing.T) {
	id, err := age.GenerateX25519Identity()
	if err != nil {
		t.Fatal(err)
	}
	r, err := ParseRecipient(id.Recipient().String(), nil)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	info, err := Init(dir, "acme", Encryption{Recipients: []age.Recipient{r}})
	if err != nil {
		t.Fatalf("Init: %v", err)
	}
	if info.Protection != ProtectionRecipients {
		t.Errorf("protection = %q", info.Protection)
	}
	ids, err := ParseIdentities(strings.NewReader("# my key\n\n"+id.String()+"\n"), nil)
	if err != nil {
		t.Fatalf("ParseIdentities: %v", err)
	}
	s, err := LoadSigner(dir, Decryption{Identities: ids})
	if err != nil || !s.PublicKey().Equal(info.PublicKey) {
		t.Fatalf("LoadSigner: %v", err)
	}
	other, err := age.GenerateX25519Identity()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := LoadSigner(dir, Decryption{Identities: []age.Identity{other}}); !errors.Is(err, ErrWrongIdentity) {
		t.Errorf("another identity: err = %v, want ErrWrongIdentity", err)
	}
	if _, err := LoadSigner(dir, Decryption{Passphrase: "guess"}); !errors.Is(err, ErrRecipientsProtected) {
		t.Errorf("a passphrase: err = %v, want ErrRecipientsProtected", err)
	}
}

func TestParseRecipientAndIdentityErrors(t *testing.T) {
	for _, s := range []string{"", "ssh-ed25519 AAAA", "age1notbech32"} {
		if _, err := ParseRecipient(s, nil); err == nil {
			t.Errorf("ParseRecipient(%q) accepted", s)
		}
	}
	_, err := ParseIdentities(strings.NewReader("AGE-SECRET-KEY-1SECRETSTUFF\n"), nil)
	if err == nil || strings.Contains(err.Error(), "SECRETSTUFF") {
		t.Errorf("ParseIdentities error = %v; want an error that does not echo the line", err)
	}
	if _, err := ParseIdentities(strings.NewReader("# nothing\n"), nil); err == nil {
		t.Error("ParseIdentities accepted a file without identities")
	}
}

func TestCorruptKeyFile(t *testing.T) {
	dir, _ := initKey(t, "hunter22")
	path := filepath.Join(dir, keyFileName)
	good, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	other, err := GenerateSigner("acme")
	if err != nil {
		t.Fatal(err)
	}
	var f keyFile
	if err := json.Unmarshal(good, &f); err != nil {
		t.Fatal(err)
	}
	swapped := f
	swapped.PubKey = other.PublicKey().String()
	cases := map[string][]byte{
		"not json":       []byte("{"),
		"unknown field":  bytes.Replace(good, []byte(`"tenant"`), []byte(`"extra": 1, "tenant"`), 1),
		"truncated age":  bytes.Replace(good, []byte("-----END AGE ENCRYPTED FILE-----"), nil, 1),
		"wrong pubkey":   marshal(t, swapped),
		"bad created_at": bytes.Replace(good, []byte(`"created_at": "`), []byte(`"created_at": "x`), 1),
	}
	for name, b := range cases {
		if err := os.WriteFile(path, b, 0o600); err != nil {
			t.Fatal(err)
		}
		if _, err := LoadSigner(dir, Decryption{Passphrase: "hunter22"}); !errors.Is(err, ErrCorruptKey) {
			t.Errorf("%s: err = %v, want ErrCorruptKey", name, err)
		}
	}
	os.Remove(path)
	if _, err := LoadSigner(dir, Decryption{Passphrase: "hunter22"}); !errors.Is(err, ErrNoKey) {
		t.Errorf("missing key.json: err = %v, want ErrNoKey", err)
	}
}

// marshal encodes v as JSON.
func marshal(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestLeftoverTempFileIgnored(t *testing.T) {
	dir, info := initKey(t, "hunter22")
	other, err := GenerateSigner("acme")
	if err != nil {
		t.Fatal(err)
	}
	data, err := sealKey(other, info.CreatedAt, pass("hunter22"), nil)
	if err != nil {
		t.Fatal(err)
	}
	tmp, err := writeTemp(dir, keyFileName, data) // as if a write was interrupted
	if err != nil {
		t.Fatal(err)
	}
	if s, err := LoadSigner(dir, Decryption{Passphrase: "hunter22"}); err != nil || !s.PublicKey().Equal(info.PublicKey) {
		t.Fatalf("LoadSigner picked up the temporary file: %v", err)
	}
	if _, err := Rotate(dir, Decryption{Passphrase: "hunter22"}, pass("hunter22"), info.CreatedAt); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(tmp); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("leftover %s not removed: %v", tmp, err)
	}
}

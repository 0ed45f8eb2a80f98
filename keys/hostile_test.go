package keys

import (
	"bytes"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestKeyDirectoryPermissions: a key directory or its archive/ that
// others may write is refused by every reader and by Rotate and Init,
// naming the chmod that fixes it.
func TestKeyDirectoryPermissions(t *testing.T) {
	for _, sub := range []string{"", archiveDirName, rotationsDirName} {
		dir, _ := initKey(t, "pw")
		bad := filepath.Join(dir, sub)
		if err := os.Chmod(bad, 0o777); err != nil {
			t.Fatal(err)
		}
		want := "chmod 700 " + filepath.Clean(bad)
		checks := map[string]error{}
		_, checks["LoadPublic"] = LoadPublic(dir)
		_, checks["LoadCurrent"] = LoadCurrent(dir)
		_, checks["LoadSigner"] = LoadSigner(dir, Decryption{Passphrase: "pw"})
		_, checks["Rotate"] = Rotate(dir, Decryption{Passphrase: "pw"}, pass("new"), at(1))
		_, checks["Init"] = Init(dir, "acme", pass("pw"))
		for name, err := range checks {
			if !errors.Is(err, ErrInsecurePermissions) || !strings.Contains(err.Error(), want) {
				t.Errorf("%s with %s at 0777: err = %v, want ErrInsecurePermissions naming %q", name, bad, err, want)
			}
		}
		if err := os.Chmod(bad, 0o750); err != nil { // readable by group is not writable by it
			t.Fatal(err)
		}
		if _, err := LoadPublic(dir); err != nil {
			t.Errorf("%s at 0750: %v", bad, err)
		}
	}
}

// TestKeyDirectoryOfAnotherUser: a key directory owned by another user is
// refused. As root the test gives its directory away; as anyone else it
// points at a directory root owns.
func TestKeyDirectoryOfAnotherUser(t *testing.T) {
	dir := "/"
	if os.Geteuid() == 0 {
		dir, _ = initKey(t, "pw")
		if err := os.Chown(dir, 65534, 65534); err != nil {
			t.Fatal(err)
		}
	}
	_, err := LoadPublic(dir)
	if !errors.Is(err, ErrInsecurePermissions) || !strings.Contains(err.Error(), "not by you") {
		t.Errorf("LoadPublic(%s): err = %v, want ErrInsecurePermissions saying who owns it", dir, err)
	}
}

// TestDuplicateMembersRefused: key.json, a public key file and a rotation
// statement with a member given twice are refused, as reports are: two
// readers could take different values from one file.
func TestDuplicateMembersRefused(t *testing.T) {
	dir, info := initKey(t, "pw")
	path := filepath.Join(dir, keyFileName)
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	other, _ := GenerateSigner("acme")
	dup := bytes.Replace(b, []byte(`"pubkey":`), []byte(`"pubkey": "`+other.PublicKey().String()+`", "pubkey":`), 1)
	if err := os.WriteFile(path, dup, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadPublic(dir); !errors.Is(err, ErrCorruptKey) || !strings.Contains(err.Error(), "duplicate") {
		t.Errorf("key.json with two pubkeys: err = %v, want ErrCorruptKey saying duplicate", err)
	}

	pub, err := info.ExportPublic()
	if err != nil {
		t.Fatal(err)
	}
	for _, twice := range [][]byte{
		bytes.Replace(pub, []byte(`"tenant":`), []byte(`"tenant": "mallory", "tenant":`), 1),
		bytes.Replace(pub, []byte(`"tenant":`), []byte(`"Tenant": "mallory", "tenant":`), 1),
	} {
		if _, err := ParsePublicKeyFile(twice); err == nil {
			t.Errorf("public key file accepted:\n%s", twice)
		}
	}

	st, err := signRotation(other, info0(t), at(1), nil)
	if err != nil {
		t.Fatal(err)
	}
	sb, _ := json.Marshal(st)
	twice := bytes.Replace(sb, []byte(`"old_sig":`), []byte(`"old_sig":"x","old_sig":`), 1)
	if _, err := ParseRotationStatement(twice); err == nil {
		t.Errorf("statement with two old_sig accepted:\n%s", twice)
	}
}

func info0(t *testing.T) *Signer {
	s, err := GenerateSigner("acme")
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestRotationListsWhatTheOldKeySigned: what a key signed and recorded
// before its rotation is in the statement and vouched for; what it signs
// afterwards (a report dated before the rotation included) is not, and
// RecordSigned refuses to record it.
func TestRotationListsWhatTheOldKeySigned(t *testing.T) {
	dir, _ := initKey(t, "pw")
	s, err := LoadSigner(dir, Decryption{Passphrase: "pw"})
	if err != nil {
		t.Fatal(err)
	}
	before := [][]byte{[]byte("box of run 1"), []byte("card of run 1"), []byte("card of run 1")}
	for _, m := range before {
		s.Sign(m)
	}
	if err := RecordSigned(dir, s); err != nil {
		t.Fatal(err)
	}
	if err := RecordSigned(dir, s); err != nil { // nothing new: nothing written
		t.Fatal(err)
	}
	s.Sign([]byte("signed, never recorded"))
	st, err := Rotate(dir, Decryption{Passphrase: "pw"}, pass("new"), at(1))
	if err != nil {
		t.Fatal(err)
	}
	if !st.Bounded() || len(st.Signed) != 2 {
		t.Fatalf("statement lists %d digests (bounded %v), want the 2 distinct ones recorded", len(st.Signed), st.Bounded())
	}
	for _, m := range before {
		if !st.Vouches(sha256.Sum256(m)) {
			t.Errorf("%q not vouched for", m)
		}
	}
	late := []byte("backdated report signed after the rotation")
	s.Sign(late)
	if st.Vouches(sha256.Sum256(late)) || st.Vouches(sha256.Sum256([]byte("signed, never recorded"))) {
		t.Error("the statement vouches for what was not recorded before it")
	}
	if err := RecordSigned(dir, s); !errors.Is(err, ErrRotated) {
		t.Errorf("RecordSigned by the retired key: err = %v, want ErrRotated", err)
	}
	pub, err := LoadPublic(dir)
	if err != nil || len(pub.Rotations) != 1 || len(pub.Rotations[0].Signed) != 2 {
		t.Fatalf("LoadPublic: %v %+v", err, pub)
	}
}

// TestLedgerSurvivesATornAppend: a crash that cut an append short leaves
// a line without its newline; the next record starts on a line of its
// own, and the torn line counts for nothing.
func TestLedgerSurvivesATornAppend(t *testing.T) {
	dir, info := initKey(t, "pw")
	s, err := LoadSigner(dir, Decryption{Passphrase: "pw"})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(dir, signedDirName), 0o700); err != nil {
		t.Fatal(err)
	}
	torn := hex.EncodeToString(make([]byte, 20))
	if err := os.WriteFile(filepath.Join(dir, signedDirName, info.Fingerprint()), []byte(torn), 0o600); err != nil {
		t.Fatal(err)
	}
	s.Sign([]byte("after the crash"))
	if err := RecordSigned(dir, s); err != nil {
		t.Fatal(err)
	}
	got, err := readLedger(dir, info.Fingerprint())
	if err != nil || len(got) != 1 || got[0] != sha256.Sum256([]byte("after the crash")) {
		t.Errorf("ledger = %x, %v", got, err)
	}
}

// TestFormatOneStatementsStillRead: a statement written before the list
// existed parses and verifies, and vouches for nothing.
func TestFormatOneStatementsStillRead(t *testing.T) {
	a, b := info0(t), info0(t)
	st := &RotationStatement{Tenant: "acme", OldKey: a.Public(), NewKey: b.Public(), RotatedAt: time.Unix(1.8e9, 0).UTC()}
	msg, err := st.SignedBytes()
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(msg, []byte("signed")) || !bytes.Contains(msg, []byte(`"version":"1"`)) {
		t.Fatalf("format 1 payload: %s", msg)
	}
	st.OldSig, st.NewSig = a.Sign(msg), b.Sign(msg)
	wire, _ := json.Marshal(st)
	back, err := ParseRotationStatement(wire)
	if err != nil || back.Verify() != nil || back.Bounded() || back.Vouches(sha256.Sum256([]byte("x"))) {
		t.Fatalf("format 1 round trip: %v %+v", err, back)
	}
}

func TestStatementListRules(t *testing.T) {
	b64 := base64.StdEncoding.EncodeToString
	k := b64(make([]byte, ed25519.PublicKeySize))
	sig := b64(make([]byte, ed25519.SignatureSize))
	lo, hi := strings.Repeat("0", 64), strings.Repeat("f", 64)
	for name, payload := range map[string]string{
		"v1 with a list":  `"version":"1","signed":[]`,
		"v2 without":      `"version":"2"`,
		"v2 unsorted":     `"version":"2","signed":["` + hi + `","` + lo + `"]`,
		"v2 repeated":     `"version":"2","signed":["` + lo + `","` + lo + `"]`,
		"v2 upper hex":    `"version":"2","signed":["` + strings.ToUpper(hi[:63]) + `a"]`,
		"v2 short digest": `"version":"2","signed":["abc"]`,
		"v3":              `"version":"3","signed":[]`,
	} {
		doc := `{"payload":{"statement":"appraise-key-rotation",` + payload + `,"tenant":"acme","old_pubkey":"` + k +
			`","new_pubkey":"` + k + `","rotated_at":"2027-01-15T08:00:00Z"},"old_sig":"` + sig + `","new_sig":"` + sig + `"}`
		if _, err := ParseRotationStatement([]byte(doc)); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

// TestCheckLedgerBeforeSigning: a ledger that cannot be written is found
// before anything is signed, and CheckLedger itself records nothing.
func TestCheckLedgerBeforeSigning(t *testing.T) {
	dir, info := initKey(t, "pw")
	s, err := LoadSigner(dir, Decryption{Passphrase: "pw"})
	if err != nil {
		t.Fatal(err)
	}
	if err := CheckLedger(dir, s); err != nil {
		t.Fatal(err)
	}
	if got, err := readLedger(dir, info.Fingerprint()); err != nil || len(got) != 0 {
		t.Fatalf("CheckLedger recorded %d digests (%v)", len(got), err)
	}
	ledger := filepath.Join(dir, signedDirName, info.Fingerprint())
	if err := os.Remove(ledger); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(ledger, 0o700); err != nil { // a directory where the ledger goes
		t.Fatal(err)
	}
	if err := CheckLedger(dir, s); err == nil {
		t.Error("CheckLedger accepted a directory for the ledger")
	}
}

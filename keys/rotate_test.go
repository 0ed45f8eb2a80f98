package keys

import (
	"bytes"
	"crypto/ed25519"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// at returns a time well after any key made by initKey.
func at(hours int) time.Time {
	return time.Now().Add(time.Duration(hours) * time.Hour)
}

func TestRotate(t *testing.T) {
	dir, info := initKey(t, "old-pass")
	st, err := Rotate(dir, Decryption{Passphrase: "old-pass"}, pass("new-pass"), at(1))
	if err != nil {
		t.Fatalf("Rotate: %v", err)
	}
	if err := st.Verify(); err != nil {
		t.Errorf("statement does not verify: %v", err)
	}
	if !st.OldKey.Equal(info.PublicKey.Ed25519()) || st.Tenant != "acme" {
		t.Errorf("statement = %+v", st)
	}
	s, err := LoadSigner(dir, Decryption{Passphrase: "new-pass"})
	if err != nil || !st.NewKey.Equal(s.Public()) {
		t.Fatalf("new key: %v", err)
	}
	old, err := LoadArchivedSigner(dir, info.Fingerprint(), Decryption{Passphrase: "old-pass"})
	if err != nil || !old.PublicKey().Equal(info.PublicKey) {
		t.Fatalf("archived key does not unlock: %v", err)
	}
	pub, err := LoadPublic(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(pub.Archived) != 1 || !pub.Archived[0].PublicKey.Equal(info.PublicKey) || len(pub.Rotations) != 1 {
		t.Errorf("LoadPublic = %+v", pub)
	}
	files, err := listJSON(filepath.Join(dir, rotationsDirName))
	if err != nil || len(files) != 1 {
		t.Fatalf("rotations/ = %v, %v", files, err)
	}
	b, err := os.ReadFile(filepath.Join(dir, rotationsDirName, files[0]))
	if err != nil {
		t.Fatal(err)
	}
	parsed, err := ParseRotationStatement(b)
	if err != nil || parsed.Verify() != nil || !parsed.RotatedAt.Equal(st.RotatedAt) {
		t.Errorf("statement file does not parse and verify: %v\n%s", err, b)
	}
}

func TestRotateRefusesWrongPassphraseAndEarlyTime(t *testing.T) {
	dir, info := initKey(t, "old-pass")
	if _, err := Rotate(dir, Decryption{Passphrase: "nope"}, pass("new"), at(1)); !errors.Is(err, ErrWrongPassphrase) {
		t.Errorf("err = %v, want ErrWrongPassphrase", err)
	}
	if _, err := Rotate(dir, Decryption{Passphrase: "old-pass"}, pass("new"), info.CreatedAt.Add(-time.Hour)); err == nil {
		t.Error("Rotate accepted a time before the key's creation")
	}
	if pub, err := LoadPublic(dir); err != nil || !pub.Current.PublicKey.Equal(info.PublicKey) || len(pub.Archived) != 0 {
		t.Errorf("a refused Rotate changed the directory: %+v, %v", pub, err)
	}
}

func TestChainTwoRotations(t *testing.T) {
	dir, info := initKey(t, "p")
	first, err := Rotate(dir, Decryption{Passphrase: "p"}, pass("p"), at(1))
	if err != nil {
		t.Fatal(err)
	}
	second, err := Rotate(dir, Decryption{Passphrase: "p"}, pass("p"), at(2))
	if err != nil {
		t.Fatal(err)
	}
	pub, err := LoadPublic(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(pub.Rotations) != 2 || len(pub.Archived) != 2 {
		t.Fatalf("LoadPublic: %d rotations, %d archived; want 2, 2", len(pub.Rotations), len(pub.Archived))
	}
	trusted := pub.Current.PublicKey.Ed25519()
	lin, err := chain(trusted, info.PublicKey.Ed25519(), pub.Rotations)
	if err != nil {
		t.Fatalf("Chain(first key): %v", err)
	}
	if len(lin.Path) != 2 || !lin.RetiredAt.Equal(first.RotatedAt) {
		t.Errorf("Chain(first key) = %d statements retired at %v; want 2, %v", len(lin.Path), lin.RetiredAt, first.RotatedAt)
	}
	lin, err = chain(trusted, first.NewKey, pub.Rotations)
	if err != nil || len(lin.Path) != 1 || !lin.RetiredAt.Equal(second.RotatedAt) {
		t.Errorf("Chain(middle key) = %+v, %v", lin, err)
	}
	if lin, err = chain(trusted, trusted, nil); err != nil || len(lin.Path) != 0 || !lin.RetiredAt.IsZero() {
		t.Errorf("Chain(trusted itself) = %+v, %v", lin, err)
	}
	// Backwards, with a statement missing, or with an unrelated key: no chain.
	stranger, err := GenerateSigner("acme")
	if err != nil {
		t.Fatal(err)
	}
	for name, c := range map[string]struct {
		trusted, signer []byte
		sts             []*RotationStatement
	}{
		"backwards": {info.PublicKey.Ed25519(), trusted, pub.Rotations},
		"gap":       {trusted, info.PublicKey.Ed25519(), pub.Rotations[:1]},
		"stranger":  {trusted, stranger.Public(), pub.Rotations},
	} {
		if _, err := chain(c.trusted, c.signer, c.sts); !errors.Is(err, ErrNotInChain) {
			t.Errorf("%s: err = %v, want ErrNotInChain", name, err)
		}
	}
}

func TestChainIgnoresForgedStatements(t *testing.T) {
	a, _ := GenerateSigner("acme")
	b, _ := GenerateSigner("acme")
	c, _ := GenerateSigner("acme")
	ab, err := signRotation(a, b, at(1), nil)
	if err != nil {
		t.Fatal(err)
	}
	// b → c without b's signature: c forged it with a random "old" signature.
	forged, err := signRotation(b, c, at(2), nil)
	if err != nil {
		t.Fatal(err)
	}
	forged.OldSig = c.Sign([]byte("not b"))
	if _, err := chain(c.Public(), a.Public(), []*RotationStatement{ab, forged}); !errors.Is(err, ErrNotInChain) {
		t.Errorf("err = %v, want ErrNotInChain", err)
	}
}

func TestTamperedStatementFailsVerify(t *testing.T) {
	a, _ := GenerateSigner("acme")
	b, _ := GenerateSigner("acme")
	st, err := signRotation(a, b, at(1), nil)
	if err != nil {
		t.Fatal(err)
	}
	good, err := json.Marshal(st)
	if err != nil {
		t.Fatal(err)
	}
	rt, err := ParseRotationStatement(good)
	if err != nil || rt.Verify() != nil {
		t.Fatalf("round trip: %v", err)
	}
	if again, _ := json.Marshal(rt); !bytes.Equal(again, good) {
		t.Errorf("round trip changed the JSON:\n%s\n%s", good, again)
	}
	later := formatTime(st.RotatedAt.Add(time.Second))
	for name, b := range map[string][]byte{
		"rotated_at": bytes.Replace(good, []byte(formatTime(st.RotatedAt)), []byte(later), 1),
		"tenant":     bytes.Replace(good, []byte(`"tenant":"acme"`), []byte(`"tenant":"evil"`), 1),
		"swapped":    swapSigs(t, good),
	} {
		tampered, err := ParseRotationStatement(b)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if err := tampered.Verify(); !errors.Is(err, ErrBadSignature) {
			t.Errorf("%s: Verify = %v, want ErrBadSignature", name, err)
		}
	}
}

// swapSigs exchanges old_sig and new_sig in a statement's JSON.
func swapSigs(t *testing.T, b []byte) []byte {
	var w statementWire
	if err := json.Unmarshal(b, &w); err != nil {
		t.Fatal(err)
	}
	w.OldSig, w.NewSig = w.NewSig, w.OldSig
	return marshal(t, w)
}

func TestParseRotationStatementStrict(t *testing.T) {
	a, _ := GenerateSigner("acme")
	b, _ := GenerateSigner("acme")
	st, err := signRotation(a, b, at(1), nil)
	if err != nil {
		t.Fatal(err)
	}
	good := marshal(t, st)
	ts := formatTime(st.RotatedAt)
	for name, in := range map[string][]byte{
		"unknown top":     bytes.Replace(good, []byte(`"old_sig"`), []byte(`"x":1,"old_sig"`), 1),
		"unknown payload": bytes.Replace(good, []byte(`"tenant"`), []byte(`"x":1,"tenant"`), 1),
		"wrong type":      bytes.Replace(good, []byte(statementType), []byte("other"), 1),
		"fractional time": bytes.Replace(good, []byte(ts), []byte(strings.TrimSuffix(ts, "Z")+".5Z"), 1),
		"non-UTC time":    bytes.Replace(good, []byte(ts), []byte(strings.TrimSuffix(ts, "Z")+"+01:00"), 1),
		"trailing":        append(bytes.Clone(good), []byte(" {}")...),
		"short sig":       bytes.Replace(good, []byte(`"new_sig":"`), []byte(`"new_sig":"AAAA`), 1),
	} {
		if _, err := ParseRotationStatement(in); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

// TestInterruptedRotation crashes Rotate after each step and checks that
// the directory still has exactly one current key that unlocks, that the
// old key is not lost, and that Rotate can be run again.
func TestInterruptedRotation(t *testing.T) {
	for step := stepPrepared; step < numRotateSteps; step++ {
		t.Run(fmt.Sprintf("step%d", step), func(t *testing.T) {
			dir, info := initKey(t, "old-pass")
			oldKey := info.PublicKey
			crash := errors.New("simulated crash")
			_, err := rotate(dir, Decryption{Passphrase: "old-pass"}, pass("new-pass"), at(1),
				func(s rotateStep) error {
					if s == step {
						return crash
					}
					return nil
				})
			if !errors.Is(err, crash) {
				t.Fatalf("rotate: err = %v, want the simulated crash", err)
			}
			if temps := countTemps(t, dir); (temps > 0) != (step == stepArchiveTemp || step == stepKeyTemp || step == stepStatementTemp) {
				t.Errorf("%d temporary files after a crash at step %d", temps, step)
			}
			swapped := step >= stepSwapped
			curPass := map[bool]string{false: "old-pass", true: "new-pass"}[swapped]
			checkOneCurrentKey(t, dir, curPass)
			pub, err := LoadPublic(dir)
			if err != nil {
				t.Fatalf("LoadPublic after crash: %v", err)
			}
			if pub.Current.PublicKey.Equal(oldKey) == swapped {
				t.Fatalf("after a crash at step %d the current key is %s; old key is %s", step, pub.Current.PublicKey, oldKey)
			}
			checkOldKeyKept(t, dir, oldKey, pub)

			st, err := Rotate(dir, Decryption{Passphrase: curPass}, pass("third-pass"), at(2))
			if err != nil {
				t.Fatalf("Rotate after crash: %v", err)
			}
			checkOneCurrentKey(t, dir, "third-pass")
			pub, err = LoadPublic(dir)
			if err != nil {
				t.Fatal(err)
			}
			if !pub.Current.PublicKey.Equal(&PublicKey{key: st.NewKey}) {
				t.Error("retried Rotate's key is not current")
			}
			checkOldKeyKept(t, dir, oldKey, pub)
			checkNoOrphans(t, dir, pub)
		})
	}
}

// checkOneCurrentKey checks that key.json is the only candidate for the
// current key, that no temporary file is mistaken for it, and that it
// unlocks with passphrase.
func checkOneCurrentKey(t *testing.T, dir, passphrase string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		switch n := e.Name(); {
		case n == keyFileName, n == archiveDirName, n == rotationsDirName, n == signedDirName, n == lockFileName, isTemp(n):
		default:
			t.Errorf("unexpected file %s in key directory", n)
		}
	}
	s, err := LoadSigner(dir, Decryption{Passphrase: passphrase})
	if err != nil {
		t.Fatalf("current key does not unlock with %q: %v", passphrase, err)
	}
	if !Verify(s.Public(), []byte("m"), s.Sign([]byte("m"))) {
		t.Error("current key does not sign")
	}
}

// checkOldKeyKept checks that oldKey is current or archived and unlocks, and
// that it chains to the current key.
func checkOldKeyKept(t *testing.T, dir string, oldKey *PublicKey, pub *DirInfo) {
	t.Helper()
	if pub.Current.PublicKey.Equal(oldKey) {
		return
	}
	s, err := LoadArchivedSigner(dir, oldKey.Fingerprint(), Decryption{Passphrase: "old-pass"})
	if err != nil || !s.PublicKey().Equal(oldKey) {
		t.Fatalf("old key lost: %v", err)
	}
	if _, err := chain(pub.Current.PublicKey.Ed25519(), oldKey.Ed25519(), pub.Rotations); err != nil {
		t.Errorf("old key does not chain to the current one: %v", err)
	}
}

// checkNoOrphans checks that every statement file names a new key that is
// current or archived, and that no temporary files are left.
func checkNoOrphans(t *testing.T, dir string, pub *DirInfo) {
	t.Helper()
	known := map[string]bool{pub.Current.PublicKey.String(): true}
	for _, k := range pub.Archived {
		known[k.PublicKey.String()] = true
	}
	sts, err := readStatements(filepath.Join(dir, rotationsDirName))
	if err != nil {
		t.Fatal(err)
	}
	if len(sts) != len(pub.Rotations) {
		t.Errorf("rotations/ holds %d statements, LoadPublic knows %d", len(sts), len(pub.Rotations))
	}
	for _, st := range sts {
		if !known[(&PublicKey{key: st.NewKey}).String()] {
			t.Errorf("statement names a key that never became current: %x", st.NewKey)
		}
	}
	if n := countTemps(t, dir); n > 0 {
		t.Errorf("%d leftover temporary files", n)
	}
}

// countTemps counts temporary files in the key directory.
func countTemps(t *testing.T, dir string) int {
	t.Helper()
	n := 0
	for _, d := range []string{dir, filepath.Join(dir, archiveDirName), filepath.Join(dir, rotationsDirName)} {
		entries, err := os.ReadDir(d)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			if isTemp(e.Name()) {
				n++
			}
		}
	}
	return n
}

func TestBusyDirectory(t *testing.T) {
	dir, _ := initKey(t, "p")
	unlock, err := lockDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer unlock()
	if _, err := Rotate(dir, Decryption{Passphrase: "p"}, pass("p"), at(1)); !errors.Is(err, ErrBusy) {
		t.Errorf("Rotate while locked: err = %v, want ErrBusy", err)
	}
}

// chain is NewRotations(statements).Chain(trusted, signer).
func chain(trusted, signer ed25519.PublicKey, statements []*RotationStatement) (*Lineage, error) {
	return NewRotations(statements).Chain(trusted, signer)
}

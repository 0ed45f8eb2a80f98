package verify

import (
	"crypto/ed25519"
	"crypto/sha256"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/everycycle/appraise/keys"
	"github.com/everycycle/appraise/schema"
)

// testKey is a fixed key for fixtures, named by seed.
type testKey struct {
	tenant string
	priv   ed25519.PrivateKey
}

func newKey(seed string) testKey {
	s := sha256.Sum256([]byte(seed))
	return testKey{tenant: "fixture", priv: ed25519.NewKeyFromSeed(s[:])}
}

func (k testKey) Sign(m []byte) []byte      { return ed25519.Sign(k.priv, m) }
func (k testKey) Public() ed25519.PublicKey { return k.priv.Public().(ed25519.PublicKey) }
func (k testKey) Tenant() string            { return k.tenant }

func (k testKey) info(t testing.TB) *keys.KeyInfo {
	t.Helper()
	pub, err := keys.NewPublicKey(k.Public())
	if err != nil {
		t.Fatal(err)
	}
	return &keys.KeyInfo{Tenant: k.tenant, PublicKey: pub}
}

// templates are the payloads of the README's real example runs: the
// two-H200 run (one box, two cards) and the software-device run.
type templates struct {
	h200Box   schema.BoxPayload
	h200Cards []schema.CardPayload
	swBox     schema.BoxPayload
	swCard    schema.CardPayload
}

func loadTemplates(t testing.TB) templates {
	t.Helper()
	var tm templates
	read := func(path string) []byte {
		b, err := os.ReadFile(filepath.Join("..", "docs", path))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	box, _, err := schema.ReadBox(read("archive/2026-11/example-h200x2/box-e41630067bcc.appraisal.json"))
	if err != nil {
		t.Fatal(err)
	}
	tm.h200Box = *box
	for _, n := range []string{"06", "07"} {
		c, _, err := schema.ReadCard(read("archive/2026-11/example-h200x2/card-6db1659cde1985c6-0000-00-" + n + ".0.appraisal.json"))
		if err != nil {
			t.Fatal(err)
		}
		tm.h200Cards = append(tm.h200Cards, *c)
	}
	sbox, _, err := schema.ReadBox(read("example/box-b2846fccb7a5.appraisal.json"))
	if err != nil {
		t.Fatal(err)
	}
	scard, _, err := schema.ReadCard(read("example/card-software-0.appraisal.json"))
	if err != nil {
		t.Fatal(err)
	}
	tm.swBox, tm.swCard = *sbox, *scard
	return tm
}

// signedRun is one run's report files, signed.
type signedRun struct {
	box   []byte
	hash  string
	cards [][]byte
}

// sign signs box and cards with k, linking the cards to the box; host
// makes the box (and so its hash) distinct.
func sign(t testing.TB, k schema.Signer, box schema.BoxPayload, cards []schema.CardPayload, host string) signedRun {
	t.Helper()
	box.Host.Hostname = host
	b, hash, err := schema.SignBox(box, k)
	if err != nil {
		t.Fatal(err)
	}
	r := signedRun{box: b, hash: hash}
	for _, c := range cards {
		c.BoxReport = hash
		cb, err := schema.SignCard(c, k)
		if err != nil {
			t.Fatal(err)
		}
		r.cards = append(r.cards, cb)
	}
	return r
}

// write puts the run into dir as appraise names its files.
func (r signedRun) write(t testing.TB, dir string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	files := map[string][]byte{"box-" + r.hash[:12] + ".appraisal.json": r.box}
	for i, c := range r.cards {
		files[fmt.Sprintf("card-%d.appraisal.json", i)] = c
	}
	for name, b := range files {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

package export

import (
	"bytes"
	"crypto/ed25519"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"path/filepath"
	"testing"

	"github.com/everycycle/appraise/keys"
	"github.com/everycycle/appraise/schema"
)

func testSigner(t *testing.T) *keys.Signer {
	t.Helper()
	s, err := keys.GenerateSigner("fleet")
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestInTotoRoundTrip(t *testing.T) {
	c := exampleCard(t, h200Card)
	s := testSigner(t)
	bundle, err := InToto(c, s)
	if err != nil {
		t.Fatal(err)
	}
	st, err := VerifyInToto(bundle, s.Public(), c.File)
	if err != nil {
		t.Fatal(err)
	}
	if got := st.GetSubject()[0].GetName(); got != filepath.Base(c.Path) {
		t.Errorf("subject name %q", got)
	}
	// The predicate is the card report: its own signature still verifies.
	pred, err := json.Marshal(st.GetPredicate().AsMap())
	if err != nil {
		t.Fatal(err)
	}
	p, v, err := schema.ReadCard(pred)
	if err != nil {
		t.Fatalf("the predicate is no verifiable card: %v", err)
	}
	if p.ProbedAt != c.Payload.ProbedAt || keys.Fingerprint(v.PublicKey) != c.KeyFingerprint {
		t.Errorf("predicate card differs: %s %s", p.ProbedAt, keys.Fingerprint(v.PublicKey))
	}
	var doc struct {
		MediaType            string `json:"mediaType"`
		VerificationMaterial struct {
			PublicKey struct {
				Hint string `json:"hint"`
			} `json:"publicKey"`
		} `json:"verificationMaterial"`
		DSSE struct {
			PayloadType string `json:"payloadType"`
			Signatures  []struct {
				KeyID string `json:"keyid"`
			} `json:"signatures"`
		} `json:"dsseEnvelope"`
	}
	if err := json.Unmarshal(bundle, &doc); err != nil {
		t.Fatal(err)
	}
	hint, _ := keyHint(s.Public())
	if doc.MediaType != BundleMediaType || doc.VerificationMaterial.PublicKey.Hint != hint || doc.DSSE.PayloadType != PayloadType || len(doc.DSSE.Signatures) != 1 {
		t.Errorf("bundle: %+v", doc)
	}
}

func TestInTotoRejectsTamperAndOtherKey(t *testing.T) {
	c := exampleCard(t, h200Card)
	s := testSigner(t)
	bundle, err := InToto(c, s)
	if err != nil {
		t.Fatal(err)
	}
	tampered := bytes.Replace(c.File, []byte(`"probed_at"`), []byte(`"probed_at" `), 1)
	if _, err := VerifyInToto(bundle, s.Public(), tampered); err == nil {
		t.Error("a changed card file verified")
	}
	if _, err := VerifyInToto(bundle, testSigner(t).Public(), c.File); err == nil {
		t.Error("another key verified the bundle")
	}
	var doc map[string]any
	if err := json.Unmarshal(bundle, &doc); err != nil {
		t.Fatal(err)
	}
	env := doc["dsseEnvelope"].(map[string]any)
	env["payloadType"] = "application/json"
	edited, _ := json.Marshal(doc)
	if _, err := VerifyInToto(edited, s.Public(), c.File); err == nil {
		t.Error("a bundle whose payload type was changed verified")
	}
}

func TestPublicKeyPEM(t *testing.T) {
	s := testSigner(t)
	b, err := PublicKeyPEM(s.Public())
	if err != nil {
		t.Fatal(err)
	}
	blk, rest := pem.Decode(b)
	if blk == nil || blk.Type != "PUBLIC KEY" || len(rest) != 0 {
		t.Fatalf("not one PUBLIC KEY block: %q", b)
	}
	k, err := x509.ParsePKIXPublicKey(blk.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	if !s.Public().Equal(k.(ed25519.PublicKey)) {
		t.Error("PEM holds another key")
	}
}

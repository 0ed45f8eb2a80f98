package export

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"path/filepath"

	intoto "github.com/in-toto/attestation/go/v1"
	"github.com/secure-systems-lab/go-securesystemslib/dsse"
	protobundle "github.com/sigstore/protobuf-specs/gen/pb-go/bundle/v1"
	protocommon "github.com/sigstore/protobuf-specs/gen/pb-go/common/v1"
	protodsse "github.com/sigstore/protobuf-specs/gen/pb-go/dsse"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/types/known/structpb"
)

// PredicateType says the predicate is a card report; its version changes
// with the predicate's shape.
const PredicateType = "https://appraise.everycycle.dev/attestation/card/v1"

// PayloadType is the DSSE payload type of an in-toto Statement.
const PayloadType = "application/vnd.in-toto+json"

// BundleMediaType is the Sigstore bundle version written.
const BundleMediaType = "application/vnd.dev.sigstore.bundle.v0.3+json"

// Signer signs bytes with an Ed25519 key, as keys.Signer does.
type Signer interface {
	Sign(msg []byte) []byte
	Public() ed25519.PublicKey
}

// Statement returns the in-toto Statement (v1) whose subject is the card
// file, by base name and SHA-256, and whose predicate is the signed report.
func Statement(c Card) (*intoto.Statement, error) {
	var report map[string]any
	if err := json.Unmarshal(c.File, &report); err != nil {
		return nil, fmt.Errorf("export: %s: %w", c.Path, err)
	}
	pred, err := structpb.NewStruct(report)
	if err != nil {
		return nil, fmt.Errorf("export: %s: predicate: %w", c.Path, err)
	}
	st := &intoto.Statement{
		Type: intoto.StatementTypeUri,
		Subject: []*intoto.ResourceDescriptor{{
			Name:   filepath.Base(c.Path),
			Digest: map[string]string{"sha256": c.SHA256()},
		}},
		PredicateType: PredicateType,
		Predicate:     pred,
	}
	if err := st.Validate(); err != nil {
		return nil, fmt.Errorf("export: in-toto statement: %w", err)
	}
	return st, nil
}

// InToto returns a Sigstore bundle (v0.3, JSON) holding the card's
// Statement in a DSSE envelope signed by s. It has no log entry, timestamp
// or certificate: cosign verify-blob-attestation checks it offline against
// the key from PublicKeyPEM.
func InToto(c Card, s Signer) ([]byte, error) {
	st, err := Statement(c)
	if err != nil {
		return nil, err
	}
	payload, err := stableJSON(protojson.Marshal(st))
	if err != nil {
		return nil, fmt.Errorf("export: in-toto statement: %w", err)
	}
	env, err := signEnvelope(payload, s)
	if err != nil {
		return nil, err
	}
	hint, err := keyHint(s.Public())
	if err != nil {
		return nil, err
	}
	sig, err := base64.StdEncoding.DecodeString(env.Signatures[0].Sig)
	if err != nil {
		return nil, fmt.Errorf("export: dsse: %w", err)
	}
	b := &protobundle.Bundle{
		MediaType: BundleMediaType,
		VerificationMaterial: &protobundle.VerificationMaterial{
			Content: &protobundle.VerificationMaterial_PublicKey{PublicKey: &protocommon.PublicKeyIdentifier{Hint: hint}},
		},
		Content: &protobundle.Bundle_DsseEnvelope{DsseEnvelope: &protodsse.Envelope{
			Payload:     payload,
			PayloadType: env.PayloadType,
			Signatures:  []*protodsse.Signature{{Sig: sig}},
		}},
	}
	out, err := stableJSON(protojson.Marshal(b))
	if err != nil {
		return nil, fmt.Errorf("export: sigstore bundle: %w", err)
	}
	var ind bytes.Buffer
	if err := json.Indent(&ind, out, "", "  "); err != nil {
		return nil, fmt.Errorf("export: sigstore bundle: %w", err)
	}
	return append(ind.Bytes(), '\n'), nil
}

// stableJSON compacts protojson's output, whose spacing varies by design.
func stableJSON(b []byte, err error) ([]byte, error) {
	if err != nil {
		return nil, err
	}
	var out bytes.Buffer
	if err := json.Compact(&out, b); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}

func signEnvelope(payload []byte, s Signer) (*dsse.Envelope, error) {
	es, err := dsse.NewEnvelopeSigner(dsseSigner{s})
	if err != nil {
		return nil, fmt.Errorf("export: dsse: %w", err)
	}
	env, err := es.SignPayload(context.Background(), PayloadType, payload)
	if err != nil {
		return nil, fmt.Errorf("export: dsse: %w", err)
	}
	if len(env.Signatures) != 1 {
		return nil, fmt.Errorf("export: dsse: %d signatures, want 1", len(env.Signatures))
	}
	return env, nil
}

// dsseSigner adapts a Signer to DSSE with an empty key id, as Sigstore
// writes: a verifier skips a signature whose key id it does not derive.
type dsseSigner struct{ s Signer }

func (d dsseSigner) Sign(_ context.Context, data []byte) ([]byte, error) { return d.s.Sign(data), nil }
func (d dsseSigner) KeyID() (string, error)                              { return "", nil }

// keyHint is base64 of the SHA-256 of pub's PKIX encoding.
func keyHint(pub ed25519.PublicKey) (string, error) {
	der, err := x509.MarshalPKIXPublicKey(pub)
	if err != nil {
		return "", fmt.Errorf("export: public key: %w", err)
	}
	sum := sha256.Sum256(der)
	return base64.StdEncoding.EncodeToString(sum[:]), nil
}

// PublicKeyPEM returns pub as a PKIX "PUBLIC KEY" PEM block, as cosign reads.
func PublicKeyPEM(pub ed25519.PublicKey) ([]byte, error) {
	der, err := x509.MarshalPKIXPublicKey(pub)
	if err != nil {
		return nil, fmt.Errorf("export: public key: %w", err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der}), nil
}

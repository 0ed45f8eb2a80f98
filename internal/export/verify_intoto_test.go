package export

import (
	"context"
	"crypto"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"

	intoto "github.com/in-toto/attestation/go/v1"
	"github.com/secure-systems-lab/go-securesystemslib/dsse"
	protobundle "github.com/sigstore/protobuf-specs/gen/pb-go/bundle/v1"
	"google.golang.org/protobuf/encoding/protojson"
)

// dsseVerifier checks DSSE signatures with an Ed25519 public key.
type dsseVerifier struct{ pub ed25519.PublicKey }

func (d dsseVerifier) Verify(_ context.Context, data, sig []byte) error {
	if !ed25519.Verify(d.pub, data, sig) {
		return errors.New("ed25519 signature does not verify")
	}
	return nil
}
func (d dsseVerifier) KeyID() (string, error)   { return "", nil }
func (d dsseVerifier) Public() crypto.PublicKey { return d.pub }

// VerifyInToto checks a bundle InToto wrote against the key pub and the
// card file's bytes: the DSSE signature over the Statement, the
// Statement's type, predicate type and subject digest. It returns the
// Statement. cosign checks the same; this lets the tests do it without
// cosign.
func VerifyInToto(bundle []byte, pub ed25519.PublicKey, cardFile []byte) (*intoto.Statement, error) {
	var b protobundle.Bundle
	if err := protojson.Unmarshal(bundle, &b); err != nil {
		return nil, fmt.Errorf("export: sigstore bundle: %w", err)
	}
	e := b.GetDsseEnvelope()
	if e == nil || len(e.GetSignatures()) != 1 {
		return nil, errors.New("export: sigstore bundle: no DSSE envelope with one signature")
	}
	ev, err := dsse.NewEnvelopeVerifier(dsseVerifier{pub})
	if err != nil {
		return nil, fmt.Errorf("export: dsse: %w", err)
	}
	env := &dsse.Envelope{
		PayloadType: e.GetPayloadType(),
		Payload:     base64.StdEncoding.EncodeToString(e.GetPayload()),
		Signatures:  []dsse.Signature{{KeyID: e.GetSignatures()[0].GetKeyid(), Sig: base64.StdEncoding.EncodeToString(e.GetSignatures()[0].GetSig())}},
	}
	if _, err := ev.Verify(context.Background(), env); err != nil {
		return nil, fmt.Errorf("export: dsse: %w", err)
	}
	if env.PayloadType != PayloadType {
		return nil, fmt.Errorf("export: dsse payload type %q, want %q", env.PayloadType, PayloadType)
	}
	var st intoto.Statement
	if err := protojson.Unmarshal(e.GetPayload(), &st); err != nil {
		return nil, fmt.Errorf("export: in-toto statement: %w", err)
	}
	if err := st.Validate(); err != nil {
		return nil, fmt.Errorf("export: in-toto statement: %w", err)
	}
	if st.GetPredicateType() != PredicateType {
		return nil, fmt.Errorf("export: predicate type %q, want %q", st.GetPredicateType(), PredicateType)
	}
	sum := sha256.Sum256(cardFile)
	want := fmt.Sprintf("%x", sum)
	if len(st.GetSubject()) != 1 || st.GetSubject()[0].GetDigest()["sha256"] != want {
		return nil, fmt.Errorf("export: the statement's subject is not this card file (sha256 %s)", want)
	}
	return &st, nil
}

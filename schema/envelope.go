package schema

import (
	"bytes"
	"crypto/ed25519"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/go-json-experiment/json/jsontext"
)

// ErrBadSignature is wrapped when a signature does not verify.
var ErrBadSignature = errors.New("signature does not verify")

// Signer signs canonical payload bytes with a tenant's Ed25519 key, as keys.Signer does.
type Signer interface {
	Sign(msg []byte) []byte
	Public() ed25519.PublicKey
	Tenant() string
}

// SignCard validates and signs p and returns the report file, indented JSON.
func SignCard(p CardPayload, s Signer) ([]byte, error) {
	if err := Validate(p); err != nil {
		return nil, err
	}
	sig, err := sign(p, s)
	if err != nil {
		return nil, err
	}
	return encodeFile(Card{Payload: p, Signature: sig})
}

// SignBox validates and signs p and returns the report file and the hash
// its cards carry in BoxReport.
func SignBox(p BoxPayload, s Signer) (file []byte, hash string, err error) {
	if err := Validate(p); err != nil {
		return nil, "", err
	}
	sig, err := sign(p, s)
	if err != nil {
		return nil, "", err
	}
	if hash, err = Hash(p); err != nil {
		return nil, "", err
	}
	file, err = encodeFile(Box{Payload: p, Signature: sig})
	return file, hash, err
}

func sign(payload any, s Signer) (Signature, error) {
	c, err := Canonical(payload)
	if err != nil {
		return Signature{}, err
	}
	return Signature{
		Alg:            AlgEd25519,
		TenantIdentity: s.Tenant(),
		TenantPubkey:   base64.StdEncoding.EncodeToString(s.Public()),
		Sig:            base64.StdEncoding.EncodeToString(s.Sign(c)),
	}, nil
}

func encodeFile(v any) ([]byte, error) {
	out, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("schema: marshal report: %w", err)
	}
	return append(out, '\n'), nil
}

type envelope struct {
	Payload   jsontext.Value `json:"payload"`
	Signature Signature      `json:"signature"`
}

// Verified is a report whose signature, format and content checked out.
type Verified struct {
	Signature Signature
	PublicKey ed25519.PublicKey // the key that signed it, not yet trusted
	Hash      string            // hex SHA-256 of the canonical payload
}

// ReadCard reads a card report strictly, verifies its signature against
// the key it names, and validates it.
func ReadCard(data []byte) (*CardPayload, *Verified, error) {
	var p CardPayload
	v, err := read(data, &p)
	if err != nil {
		return nil, nil, fmt.Errorf("card: %w", err)
	}
	return &p, v, nil
}

// ReadBox reads a box report strictly, verifies its signature against the
// key it names, and validates it.
func ReadBox(data []byte) (*BoxPayload, *Verified, error) {
	var p BoxPayload
	v, err := read(data, &p)
	if err != nil {
		return nil, nil, fmt.Errorf("box: %w", err)
	}
	return &p, v, nil
}

// read checks strict JSON, the signature over the payload as written, that
// the typed payload re-encodes to the signed bytes, and every rule.
func read(data []byte, payload any) (*Verified, error) {
	var env envelope
	if err := DecodeStrict(data, &env); err != nil {
		return nil, err
	}
	if env.Payload == nil {
		return nil, fmt.Errorf("%w: no payload", ErrMalformed)
	}
	if err := Validate(env.Signature); err != nil {
		return nil, fmt.Errorf("signature block: %w", err)
	}
	if err := decodeChecked(env.Payload, payload); err != nil {
		return nil, fmt.Errorf("payload: %w", err)
	}
	signed, err := canonicalize(env.Payload)
	if err != nil {
		return nil, err
	}
	pub, err := verifySig(signed, env.Signature)
	if err != nil {
		return nil, err
	}
	again, err := Canonical(payload)
	if err != nil {
		return nil, err
	}
	if !bytes.Equal(again, signed) {
		return nil, fmt.Errorf("%w: payload holds members or nulls this format does not write", ErrMalformed)
	}
	if err := Validate(payload); err != nil {
		return nil, err
	}
	return &Verified{Signature: env.Signature, PublicKey: pub, Hash: hashBytes(signed)}, nil
}

func verifySig(msg []byte, s Signature) (ed25519.PublicKey, error) {
	pub, err := base64.StdEncoding.Strict().DecodeString(s.TenantPubkey)
	if err != nil || len(pub) != ed25519.PublicKeySize {
		return nil, fmt.Errorf("%w: tenant_pubkey is not a base64 Ed25519 key", ErrMalformed)
	}
	sig, err := base64.StdEncoding.Strict().DecodeString(s.Sig)
	if err != nil || len(sig) != ed25519.SignatureSize {
		return nil, fmt.Errorf("%w: sig is not a base64 Ed25519 signature", ErrMalformed)
	}
	if !ed25519.Verify(pub, msg, sig) {
		return nil, ErrBadSignature
	}
	return pub, nil
}

package keys

import (
	"bytes"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/everycycle/appraise/internal/jcs"
)

const statementType = "appraise-key-rotation"

// Statement formats: 2 lists what the old key signed; 1, still read, did not.
const (
	statementV1 = "1"
	statementV2 = "2"
)

// RotationStatement records that a tenant replaced OldKey by NewKey at
// RotatedAt and, in format 2, the messages OldKey signed, the only ones it
// vouches for. Its JSON form is {"payload": {…}, "old_sig", "new_sig"},
// keys and signatures in padded standard base64.
type RotationStatement struct {
	Tenant    string
	OldKey    ed25519.PublicKey
	NewKey    ed25519.PublicKey
	RotatedAt time.Time // UTC, whole seconds
	// Signed holds the sorted SHA-256 of every message OldKey signed; nil
	// in format 1, which vouches for nothing.
	Signed [][sha256.Size]byte
	OldSig []byte // OldKey's signature of SignedBytes
	NewSig []byte // NewKey's signature of SignedBytes
}

type statementPayload struct {
	Statement string    `json:"statement"`
	Version   string    `json:"version"`
	Tenant    string    `json:"tenant"`
	OldPubKey string    `json:"old_pubkey"`
	NewPubKey string    `json:"new_pubkey"`
	RotatedAt string    `json:"rotated_at"`
	Signed    *[]string `json:"signed,omitempty"`
}

type statementWire struct {
	Payload statementPayload `json:"payload"`
	OldSig  string           `json:"old_sig"`
	NewSig  string           `json:"new_sig"`
}

// signRotation returns old's statement handing over to next at t.
func signRotation(old, next *Signer, t time.Time, signed [][sha256.Size]byte) (*RotationStatement, error) {
	if signed == nil {
		signed = [][sha256.Size]byte{}
	}
	st := &RotationStatement{
		Tenant: old.Tenant(), OldKey: old.Public(), NewKey: next.Public(),
		RotatedAt: t.UTC().Truncate(time.Second), Signed: signed,
	}
	msg, err := st.SignedBytes()
	if err != nil {
		return nil, err
	}
	st.OldSig, st.NewSig = old.Sign(msg), next.Sign(msg)
	return st, st.Verify()
}

func (s *RotationStatement) payload() statementPayload {
	b64 := base64.StdEncoding.EncodeToString
	p := statementPayload{
		Statement: statementType, Version: statementV1, Tenant: s.Tenant,
		OldPubKey: b64(s.OldKey), NewPubKey: b64(s.NewKey), RotatedAt: formatTime(s.RotatedAt),
	}
	if s.Signed != nil {
		list := make([]string, len(s.Signed))
		for i, d := range s.Signed {
			list[i] = hex.EncodeToString(d[:])
		}
		p.Version, p.Signed = statementV2, &list
	}
	return p
}

// Bounded reports whether the statement lists what the old key signed.
func (s *RotationStatement) Bounded() bool {
	return s.Signed != nil
}

// Vouches reports whether the statement lists digest.
func (s *RotationStatement) Vouches(digest [sha256.Size]byte) bool {
	_, found := slices.BinarySearchFunc(s.Signed, digest, func(a, b [sha256.Size]byte) int { return bytes.Compare(a[:], b[:]) })
	return found
}

// SignedBytes returns the RFC 8785 form of the payload, which both keys sign.
func (s *RotationStatement) SignedBytes() ([]byte, error) {
	c, err := jcs.Marshal(s.payload())
	if err != nil {
		return nil, fmt.Errorf("keys: rotation statement: %w", err)
	}
	return c, nil
}

// Verify checks both signatures. Failures wrap ErrBadSignature.
func (s *RotationStatement) Verify() error {
	if s.OldKey.Equal(s.NewKey) {
		return fmt.Errorf("keys: rotation statement: %w: old and new key are the same", ErrBadSignature)
	}
	msg, err := s.SignedBytes()
	if err != nil {
		return err
	}
	if !Verify(s.OldKey, msg, s.OldSig) {
		return fmt.Errorf("keys: rotation statement: old key's signature: %w", ErrBadSignature)
	}
	if !Verify(s.NewKey, msg, s.NewSig) {
		return fmt.Errorf("keys: rotation statement: new key's countersignature: %w", ErrBadSignature)
	}
	return nil
}

// MarshalJSON writes the JSON form.
func (s *RotationStatement) MarshalJSON() ([]byte, error) {
	b64 := base64.StdEncoding.EncodeToString
	return json.Marshal(statementWire{Payload: s.payload(), OldSig: b64(s.OldSig), NewSig: b64(s.NewSig)})
}

// UnmarshalJSON parses as ParseRotationStatement does, without verifying.
func (s *RotationStatement) UnmarshalJSON(b []byte) error {
	var w statementWire
	if err := decodeStrict(b, &w); err != nil {
		return fmt.Errorf("keys: rotation statement: %w", err)
	}
	st, err := w.statement()
	if err != nil {
		return fmt.Errorf("keys: rotation statement: %w", err)
	}
	*s = *st
	return nil
}

// ParseRotationStatement parses the JSON form strictly; call Verify.
func ParseRotationStatement(b []byte) (*RotationStatement, error) {
	var s RotationStatement
	if err := s.UnmarshalJSON(b); err != nil {
		return nil, err
	}
	return &s, nil
}

func (w *statementWire) statement() (*RotationStatement, error) {
	p := w.Payload
	if p.Statement != statementType || (p.Version != statementV1 && p.Version != statementV2) {
		return nil, fmt.Errorf("statement %q version %q, want %q version %q or %q", p.Statement, p.Version, statementType, statementV2, statementV1)
	}
	signed, err := parseSigned(p.Version, p.Signed)
	if err != nil {
		return nil, err
	}
	if err := ValidateTenant(p.Tenant); err != nil {
		return nil, err
	}
	oldKey, err := ParsePublicKey(p.OldPubKey)
	if err != nil {
		return nil, fmt.Errorf("old_pubkey: %w", err)
	}
	newKey, err := ParsePublicKey(p.NewPubKey)
	if err != nil {
		return nil, fmt.Errorf("new_pubkey: %w", err)
	}
	at, err := parseTime(p.RotatedAt)
	if err != nil {
		return nil, fmt.Errorf("rotated_at: %w", err)
	}
	oldSig, err1 := parseSignature(w.OldSig)
	newSig, err2 := parseSignature(w.NewSig)
	if err := errors.Join(err1, err2); err != nil {
		return nil, err
	}
	return &RotationStatement{Tenant: p.Tenant, OldKey: oldKey.key, NewKey: newKey.key,
		RotatedAt: at, Signed: signed, OldSig: oldSig, NewSig: newSig}, nil
}

// parseSigned requires format 2's list, lowercase, ascending and without repeats.
func parseSigned(version string, list *[]string) ([][sha256.Size]byte, error) {
	switch {
	case version == statementV1 && list != nil:
		return nil, errors.New("a version 1 statement has no signed member")
	case version == statementV1:
		return nil, nil
	case list == nil:
		return nil, errors.New("a version 2 statement lists what the old key signed: signed is missing")
	}
	out := make([][sha256.Size]byte, len(*list))
	for i, h := range *list {
		if len(h) != 2*sha256.Size || !isLowerHex([]byte(h)) {
			return nil, fmt.Errorf("signed[%d] %q is not a lowercase hex SHA-256 digest", i, h)
		}
		hex.Decode(out[i][:], []byte(h))
		if i > 0 && bytes.Compare(out[i-1][:], out[i][:]) >= 0 {
			return nil, fmt.Errorf("signed[%d] is not after signed[%d]: the list must ascend without repeats", i, i-1)
		}
	}
	return out, nil
}

func parseSignature(s string) ([]byte, error) {
	b, err := base64.StdEncoding.Strict().DecodeString(s)
	if err != nil || len(b) != ed25519.SignatureSize || base64.StdEncoding.EncodeToString(b) != s {
		return nil, fmt.Errorf("signature %q is not %d bytes of standard base64", s, ed25519.SignatureSize)
	}
	return b, nil
}

// Lineage is how a signing key descends to a trusted key; see Rotations.Chain.
type Lineage struct {
	Path      []*RotationStatement // from the signing key, oldest first
	RetiredAt time.Time            // the signing key's earliest rotated_at, or zero
}

// Rotations is a set of verified statements; it is safe for concurrent use.
type Rotations struct {
	next map[string][]*RotationStatement // old key → verified statements retiring it
	bad  int                             // statements that failed Verify
}

// NewRotations keeps the statements that verify.
func NewRotations(statements []*RotationStatement) *Rotations {
	r := &Rotations{next: make(map[string][]*RotationStatement)}
	for _, st := range statements {
		if st == nil || st.Verify() != nil {
			r.bad++
			continue
		}
		r.next[string(st.OldKey)] = append(r.next[string(st.OldKey)], st)
	}
	return r
}

// Chain returns the path of r's statements from signer to trusted, empty
// when they are one key, or an error wrapping ErrNotInChain. Callers accept
// from a predecessor only what the path's first statement Vouches.
func (r *Rotations) Chain(trusted, signer ed25519.PublicKey) (*Lineage, error) {
	if len(trusted) != ed25519.PublicKeySize || len(signer) != ed25519.PublicKeySize {
		return nil, fmt.Errorf("keys: chain: public keys must be %d bytes", ed25519.PublicKeySize)
	}
	if signer.Equal(trusted) {
		return &Lineage{}, nil
	}
	path := findPath(r.next, signer, trusted)
	if path == nil {
		return nil, fmt.Errorf("keys: chain: %s → %s: %w (%d statements ignored as unverifiable)",
			Fingerprint(signer), Fingerprint(trusted), ErrNotInChain, r.bad)
	}
	for _, st := range path {
		if st.Tenant != path[0].Tenant {
			return nil, fmt.Errorf("keys: chain: %w: it crosses from tenant %q to %q", ErrNotInChain, path[0].Tenant, st.Tenant)
		}
	}
	retired := path[0].RotatedAt
	for _, st := range r.next[string(signer)] {
		if st.RotatedAt.Before(retired) {
			retired = st.RotatedAt
		}
	}
	return &Lineage{Path: path, RetiredAt: retired}, nil
}

// findPath returns a shortest path of statements from one key to another, or nil.
func findPath(next map[string][]*RotationStatement, from, to ed25519.PublicKey) []*RotationStatement {
	via := map[string]*RotationStatement{string(from): nil} // key → statement that reached it
	queue := []string{string(from)}
	for len(queue) > 0 {
		k := queue[0]
		queue = queue[1:]
		for _, st := range next[k] {
			n := string(st.NewKey)
			if _, seen := via[n]; seen {
				continue
			}
			via[n] = st
			if n == string(to) {
				return unwind(via, from, to)
			}
			queue = append(queue, n)
		}
	}
	return nil
}

func unwind(via map[string]*RotationStatement, from, to ed25519.PublicKey) []*RotationStatement {
	var path []*RotationStatement
	for k := string(to); k != string(from); k = string(via[k].OldKey) {
		path = append([]*RotationStatement{via[k]}, path...)
	}
	return path
}

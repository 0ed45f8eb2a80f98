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

// statementType names a rotation statement in its payload.
const statementType = "appraise-key-rotation"

// Statement format versions: 2 lists what the old key signed; 1 did not,
// and is still read so that older key directories load.
const (
	statementV1 = "1"
	statementV2 = "2"
)

// RotationStatement records that a tenant replaced OldKey by NewKey at
// RotatedAt, and (format 2) every message OldKey had signed by then.
// OldSig is OldKey's signature and NewSig NewKey's countersignature, both
// over SignedBytes. Its JSON form is
//
//	{"payload":{"statement":"appraise-key-rotation","version":"2",
//	            "tenant":…,"old_pubkey":…,"new_pubkey":…,"rotated_at":…,
//	            "signed":["<sha256 hex>",…]},
//	 "old_sig":…,"new_sig":…}
//
// with keys and signatures in standard base64 with padding, rotated_at in
// RFC 3339 UTC, whole seconds, and signed in ascending order without
// repeats. A format-1 statement has version "1" and no signed member.
// ParseRotationStatement reads both.
//
// Why the list: a signature carries no trusted time. Whoever holds a
// retired key can sign a new report and date it before the rotation, and
// nothing in the report tells it apart from one signed in time. The list,
// signed by both keys when the old one is retired, is the bound a verifier
// can check: the old key vouches for exactly the messages it names.
type RotationStatement struct {
	// Tenant owns both keys.
	Tenant string
	// OldKey is the key retired.
	OldKey ed25519.PublicKey
	// NewKey is the key that replaced it.
	NewKey ed25519.PublicKey
	// RotatedAt is when OldKey was retired, UTC, whole seconds.
	RotatedAt time.Time
	// Signed holds the SHA-256 digest of every message OldKey signed
	// before it was retired (for a report: the hash of its canonical
	// payload), sorted, from the key directory's signing ledger (see
	// RecordSigned). It is nil in a format-1 statement, which vouches for
	// nothing; an empty, non-nil list says the old key signed nothing.
	Signed [][sha256.Size]byte
	// OldSig is OldKey's signature of SignedBytes.
	OldSig []byte
	// NewSig is NewKey's signature of SignedBytes.
	NewSig []byte
}

// statementPayload is the signed part of a statement on the wire.
type statementPayload struct {
	Statement string    `json:"statement"`
	Version   string    `json:"version"`
	Tenant    string    `json:"tenant"`
	OldPubKey string    `json:"old_pubkey"`
	NewPubKey string    `json:"new_pubkey"`
	RotatedAt string    `json:"rotated_at"`
	Signed    *[]string `json:"signed,omitempty"`
}

// statementWire is a whole statement on the wire.
type statementWire struct {
	Payload statementPayload `json:"payload"`
	OldSig  string           `json:"old_sig"`
	NewSig  string           `json:"new_sig"`
}

// signRotation makes the statement by which old, having signed the
// messages with the given digests (sorted, no repeats), hands over to next
// at t.
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

// payload returns the wire form of the signed part.
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

// Bounded reports whether the statement lists what the old key signed
// (format 2). A format-1 statement bounds nothing, so Vouches is false
// for every digest.
func (s *RotationStatement) Bounded() bool {
	return s.Signed != nil
}

// Vouches reports whether digest is among the messages the old key signed
// before this statement retired it.
func (s *RotationStatement) Vouches(digest [sha256.Size]byte) bool {
	_, found := slices.BinarySearchFunc(s.Signed, digest, func(a, b [sha256.Size]byte) int { return bytes.Compare(a[:], b[:]) })
	return found
}

// SignedBytes returns the bytes both keys sign: the RFC 8785 canonical JSON
// of the payload object.
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

// ParseRotationStatement parses the JSON form strictly: unknown fields,
// trailing data and non-canonical keys or times are rejected. It does not
// check the signatures; call Verify.
func ParseRotationStatement(b []byte) (*RotationStatement, error) {
	var s RotationStatement
	if err := s.UnmarshalJSON(b); err != nil {
		return nil, err
	}
	return &s, nil
}

// statement converts and checks the wire form.
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

// parseSigned checks a statement's list of digests: absent in format 1;
// present in format 2, lowercase hex, ascending, without repeats (the only
// order SignedBytes writes).
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

// parseSignature decodes a base64 Ed25519 signature.
func parseSignature(s string) ([]byte, error) {
	b, err := base64.StdEncoding.Strict().DecodeString(s)
	if err != nil || len(b) != ed25519.SignatureSize || base64.StdEncoding.EncodeToString(b) != s {
		return nil, fmt.Errorf("signature %q is not %d bytes of standard base64", s, ed25519.SignatureSize)
	}
	return b, nil
}

// Lineage is how a signing key descends to a trusted key; see Chain.
type Lineage struct {
	// Path holds verified statements from the signing key to the trusted
	// key, oldest first; it is empty when the two are the same key.
	Path []*RotationStatement
	// RetiredAt is when the signing key was retired: the earliest rotated_at
	// among the verified statements that it signed as the old key. It is the
	// zero time when the signing key is the trusted key.
	RetiredAt time.Time
}

// Chain reports whether signer is trusted itself or a predecessor of
// trusted through verified statements, signer → … → trusted. Statements that
// fail Verify are ignored. Callers accept from a predecessor only what the
// first statement of the path vouches for (RotationStatement.Vouches). When
// there is no such chain the error wraps ErrNotInChain. To ask about many
// signers, build Rotations once: Chain verifies every statement each call.
func Chain(trusted, signer ed25519.PublicKey, statements []*RotationStatement) (*Lineage, error) {
	return NewRotations(statements).Chain(trusted, signer)
}

// Rotations is a set of statements, each verified once, to follow many
// chains through. It is safe for concurrent use.
type Rotations struct {
	next map[string][]*RotationStatement // old key → verified statements retiring it
	bad  int                             // statements that failed Verify
}

// NewRotations verifies each statement once and keeps those that verify.
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

// Chain is the package's Chain over r's verified statements.
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

// findPath returns a shortest path of statements from one key to another by
// breadth-first search, or nil.
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

// unwind follows findPath's back-pointers from to back to from.
func unwind(via map[string]*RotationStatement, from, to ed25519.PublicKey) []*RotationStatement {
	var path []*RotationStatement
	for k := string(to); k != string(from); k = string(via[k].OldKey) {
		path = append([]*RotationStatement{via[k]}, path...)
	}
	return path
}

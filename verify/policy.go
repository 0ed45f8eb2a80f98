// Package verify decides whether signed appraisal reports are to be
// believed, by the one policy every verifier shares. Files verifies report
// files and directories, Checker applies the same rules to bytes, and
// Policy.Judge is the trust rule alone. A Verdict's Class names the first
// rule a report broke; the work is linear in the number of files.
package verify

import (
	"bytes"
	"encoding/hex"
	"fmt"
	"time"

	"github.com/everycycle/appraise/keys"
	"github.com/everycycle/appraise/schema"
)

// Trust says how a report's key relates to the pinned key.
type Trust string

const (
	TrustPinned   Trust = "pinned"   // signed by the pinned key
	TrustRotated  Trust = "rotated"  // by an older key, vouched for by its rotation
	TrustUnpinned Trust = "unpinned" // no key is pinned: valid for the key it names
)

// Policy says which keys are trusted. A report signed by an older key is
// trusted only when Rotations lead from it to Trusted and the statement
// that retired it lists the report: a signature carries no trusted time.
type Policy struct {
	Trusted   *keys.KeyInfo             // the pinned tenant key, or nil for none
	Rotations []*keys.RotationStatement // those that do not verify are ignored
}

// Pinned reports whether the policy pins a key.
func (p Policy) Pinned() bool {
	return p.Trusted != nil
}

// Judge says how the key of a verified report relates to the pinned key;
// a failure's class is ClassUntrusted or ClassNotVouched. It verifies the
// rotation statements on each call.
func (p Policy) Judge(v *schema.Verified) (Trust, Class, error) {
	return p.prepare().judge(v)
}

// judge is a Policy with its statements verified.
type judge struct {
	trusted *keys.KeyInfo
	rot     *keys.Rotations
}

func (p Policy) prepare() judge {
	if p.Trusted == nil {
		return judge{}
	}
	return judge{trusted: p.Trusted, rot: keys.NewRotations(p.Rotations)}
}

func (j judge) judge(v *schema.Verified) (Trust, Class, error) {
	if j.trusted == nil {
		return TrustUnpinned, ClassOK, nil
	}
	signer := v.PublicKey
	if t := j.trusted.Tenant; t != "" && t != v.Signature.TenantIdentity {
		return "", ClassUntrusted, fmt.Errorf("tenant_identity %q is not the pinned key's tenant %q", v.Signature.TenantIdentity, t)
	}
	if bytes.Equal(signer, j.trusted.PublicKey.Ed25519()) {
		return TrustPinned, ClassOK, nil
	}
	lin, err := j.rot.Chain(j.trusted.PublicKey.Ed25519(), signer)
	if err != nil {
		return "", ClassUntrusted, fmt.Errorf("signed by key %s, not the pinned key %s: %w", keys.Fingerprint(signer), j.trusted.Fingerprint(), err)
	}
	retiring := lin.Path[0]
	if !retiring.Bounded() {
		return "", ClassNotVouched, fmt.Errorf("signed by key %s, retired at %s by a format-1 rotation statement, which lists nothing that key signed: pin that key itself with --trust to accept its reports",
			keys.Fingerprint(signer), retiring.RotatedAt.Format(time.RFC3339))
	}
	var digest [32]byte
	if n, err := hex.Decode(digest[:], []byte(v.Hash)); err != nil || n != len(digest) {
		return "", ClassMalformed, fmt.Errorf("report hash %q is not a SHA-256 digest", v.Hash)
	}
	if !retiring.Vouches(digest) {
		return "", ClassNotVouched, fmt.Errorf("signed by key %s, retired at %s; the rotation statement that retired it does not list this report, so the key signed it after its rotation or never recorded it (its probed_at proves nothing)",
			keys.Fingerprint(signer), retiring.RotatedAt.Format(time.RFC3339))
	}
	return TrustRotated, ClassOK, nil
}

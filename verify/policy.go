// Package verify decides whether signed appraisal reports are to be
// believed: the whole policy that 'appraise verify' applies, in one place
// that the CLI and every later verifier (an exporter publishing verified
// figures, a browser build) call, so that they all reach the same verdict
// on the same files. It is named for what its callers do with it:
// verify.Files(paths, options) returns one Verdict per file.
//
// # Where to start
//
// [Files] verifies report files and directories from the filesystem, reading
// each file once, with the bounds of [ReadFile]. [Checker] is the same
// policy without a filesystem: Add each file's bytes, then ask for the
// Verdicts. [Policy.Judge] is the trust rule alone, for a caller that
// verifies one card (compare, plot).
//
// The package's examples (example_test.go; pkg.go.dev and 'go test -run
// Example -v' show them) are the two consumers a card is made for, reading
// the committed example runs: Example_scheduler verifies each node's run
// against its pinned key and routes fp16 work to the device measured
// fastest at it, matrix engine or not; Example_pricing prices cards and
// tells a slower card from a degraded one by their roofline ratios.
//
// # The rules
//
// A report is believed when all of these hold, and its Verdict's Class
// names the first that fails:
//
//   - it is a regular file of at most MaxFileBytes (ClassUnreadable);
//   - it reads strictly as a card or box report and validates
//     (ClassMalformed), and its Ed25519 signature over the RFC 8785 form of
//     its payload verifies against the key it names (ClassBadSignature);
//   - with a pinned key, it was signed by that key, for the same tenant, or
//     by an older key that rotation statements lead from to the pinned one
//     (ClassUntrusted), and then the statement that retired that key lists
//     the report among what the key had signed (ClassNotVouched): a
//     signature carries no trusted time, so a date in the report proves
//     nothing about when it was signed;
//   - a card's box (named by the SHA-256 of its canonical payload) is among
//     the files, given or found beside the card (ClassBoxMissing), signed by
//     the same key (ClassBoxKey);
//   - in a run directory (files found by listing a directory), each device a
//     box lists has exactly one card there linking it whose identity is that
//     device: none is ClassIncompleteRun on the box, two are
//     ClassDuplicateDevice on them and the box, and a card for a device the
//     box does not list is ClassUnlistedDevice.
//
// The work is linear in the number of files: each is read and parsed once,
// boxes are found by hash, and only what the cross-file rules need is kept
// once a file is parsed, so memory grows with the number of files, not
// their size.
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
	// TrustPinned: signed by the pinned key.
	TrustPinned Trust = "pinned"
	// TrustRotated: signed by an older key that rotation statements lead
	// from to the pinned key, and vouched for by the statement that
	// retired it.
	TrustRotated Trust = "rotated"
	// TrustUnpinned: no key is pinned; the signature is valid for the key
	// the report names, which proves only that whoever holds that key
	// signed it.
	TrustUnpinned Trust = "unpinned"
)

// Policy says which keys are trusted.
type Policy struct {
	// Trusted is the pinned tenant key; nil pins none (every validly
	// signed report is TrustUnpinned).
	Trusted *keys.KeyInfo
	// Rotations are statements that may lead from an older key to
	// Trusted; those that do not verify are ignored.
	Rotations []*keys.RotationStatement
}

// Pinned reports whether the policy pins a key.
func (p Policy) Pinned() bool {
	return p.Trusted != nil
}

// Judge says how the key of a verified report relates to the pinned key.
// A failure's class is ClassUntrusted or ClassNotVouched. It verifies the
// rotation statements on each call; a Checker verifies them once.
func (p Policy) Judge(v *schema.Verified) (Trust, Class, error) {
	return p.prepare().judge(v)
}

// judge is a Policy with its statements verified, for many reports.
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

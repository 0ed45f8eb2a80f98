package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/everycycle/appraise/keys"
	"github.com/everycycle/appraise/verify"
)

// trustFlags pin the tenant key, for every command that reads reports.
type trustFlags struct {
	Trust     string   `placeholder:"PUBKEY|FILE" help:"Pin the tenant key: a file from 'appraise keys export-public', or a base64 public key. Without it the signature is checked against the key the report names, which proves nothing about who that is."`
	Rotations []string `placeholder:"FILE|DIR" help:"Rotation statements (files, or a directory such as the key directory's rotations/) that lead from an older key to the pinned one; the older key's reports are accepted only where the statement that retired it lists them."`
}

// trustHint is what a bad --trust is told.
const trustHint = "give a file from 'appraise keys export-public', or the base64 public key it holds"

// policy reads --trust and --rotations; a bad one is exit 2.
func (f trustFlags) policy() (verify.Policy, error) {
	sts, err := verify.ReadStatements(f.Rotations)
	if err != nil {
		return verify.Policy{}, withCode(exitUsage, fmt.Errorf("--rotations: %w", err), "")
	}
	if f.Trust == "" {
		if len(sts) > 0 {
			return verify.Policy{}, withCode(exitUsage, errors.New("--rotations needs --trust"), "")
		}
		return verify.Policy{}, nil
	}
	info, err := trusted(f.Trust)
	if err != nil {
		return verify.Policy{}, withCode(exitUsage, fmt.Errorf("--trust %s: %w", f.Trust, err), trustHint)
	}
	return verify.Policy{Trusted: info, Rotations: sts}, nil
}

// trusted reads a --trust value: a file, else a bare base64 key.
func trusted(v string) (*keys.KeyInfo, error) {
	if _, statErr := os.Stat(v); statErr == nil {
		b, err := verify.ReadFile(v, keys.MaxFileBytes)
		if err != nil {
			return nil, err
		}
		return keys.ParsePublicKeyFile(b)
	} else if k, err := keys.ParsePublicKey(v); err == nil {
		return &keys.KeyInfo{PublicKey: k}, nil
	} else {
		return nil, fmt.Errorf("no such file (%w), and not a base64 public key either", statErr)
	}
}

// warnUnpinned warns that an unpinned signature proves only who signed.
func warnUnpinned(e *env, file string, v verify.Verdict) {
	fmt.Fprintf(e.stderr, "appraise: warning: %s: signed by key %s, but no key is pinned: pass --trust with the tenant's public key\n", file, v.Fingerprint)
}

// rotationsHint is the hint for reports of the pinned tenant refused for a
// key the pinned key does not vouch for (likely a missing rotation);
// "" when no verdict is such a refusal.
func (f trustFlags) rotationsHint(e *env, g *globals, pol verify.Policy, vs []verify.Verdict) string {
	if !pol.Pinned() {
		return ""
	}
	for _, v := range vs {
		if v.Class != verify.ClassUntrusted || v.Fingerprint == "" || (pol.Trusted.Tenant != "" && v.Tenant != pol.Trusted.Tenant) {
			continue
		}
		if dir, at, ok := retiredHere(e, g, v.Fingerprint); ok {
			return fmt.Sprintf("key %s was retired at %s by the rotation in %s: pass --rotations %s to accept the reports it signed before then",
				v.Fingerprint, at.Format(time.RFC3339), dir, filepath.Join(dir, "rotations"))
		}
		if len(f.Rotations) > 0 {
			return fmt.Sprintf("the rotation statements given do not lead from key %s to the pinned key: give the statement that retired it (rotations/ in the tenant's key directory)", v.Fingerprint)
		}
		return fmt.Sprintf("if key %s is an older key of this tenant, retired by 'appraise keys rotate', pass --rotations with its rotation statements (rotations/ in the tenant's key directory)", v.Fingerprint)
	}
	return ""
}

// retiredHere says where and when the local key directory retired the key
// of fingerprint; an unreadable directory is no answer, not an error.
func retiredHere(e *env, g *globals, fingerprint string) (string, time.Time, bool) {
	dir, err := keys.ResolveDir(g.KeyDir, e.getenv)
	if err != nil {
		return "", time.Time{}, false
	}
	info, err := keys.LoadPublic(dir)
	if err != nil {
		return "", time.Time{}, false
	}
	for _, r := range info.Rotations {
		if keys.Fingerprint(r.OldKey) == fingerprint {
			return dir, r.RotatedAt, true
		}
	}
	return "", time.Time{}, false
}

package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/everycycle/appraise/keys"
	"github.com/everycycle/appraise/schema"
)

// trustPolicy decides whether a report's key is the pinned one, or an
// older key that rotation statements lead from to the pinned one.
type trustPolicy struct {
	trusted   *keys.KeyInfo
	rotations []*keys.RotationStatement
}

func (c *verifyCmd) trustPolicy() (*trustPolicy, error) {
	p := &trustPolicy{}
	files, _, err := expand(c.Rotations, "*.json")
	if err != nil {
		return nil, err
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		st, err := keys.ParseRotationStatement(b)
		if err != nil {
			return nil, withCode(exitUsage, fmt.Errorf("%s: %w", f, err), "")
		}
		p.rotations = append(p.rotations, st)
	}
	if c.Trust == "" {
		if len(p.rotations) > 0 {
			return nil, withCode(exitUsage, errors.New("--rotations needs --trust"), "")
		}
		return p, nil
	}
	src := []byte(c.Trust)
	if b, err := os.ReadFile(c.Trust); err == nil {
		src = b
	}
	info, err := keys.ParsePublicKeyFile(src)
	if err != nil {
		return nil, withCode(exitUsage, fmt.Errorf("--trust: %w", err), "give a base64 public key or a file from 'appraise keys export-public'")
	}
	p.trusted = info
	return p, nil
}

// judge completes the outcome of a report whose signature verified.
func (p *trustPolicy) judge(r *reportFile, boxes map[string]*reportFile, searchBeside bool) outcome {
	o := outcome{File: r.path, Kind: "card", Tenant: r.verified.Signature.TenantIdentity, Fingerprint: keys.Fingerprint(r.verified.PublicKey)}
	probedAt := ""
	if r.box != nil {
		o.Kind, probedAt = "box", r.box.ProbedAt
	} else {
		probedAt = r.card.ProbedAt
	}
	trust, err := p.check(r.verified, probedAt)
	o.Trust = trust
	if err == nil && r.card != nil {
		o.Box, err = linkBox(r, boxes, searchBeside)
	}
	if err != nil {
		o.Error = err.Error()
		return o
	}
	o.OK = true
	return o
}

// check says how the report's key relates to the pinned key.
func (p *trustPolicy) check(v *schema.Verified, probedAt string) (string, error) {
	if p.trusted == nil {
		return "unpinned", nil
	}
	signer := v.PublicKey
	if t := p.trusted.Tenant; t != "" && t != v.Signature.TenantIdentity {
		return "", fmt.Errorf("tenant_identity %q is not the pinned key's tenant %q", v.Signature.TenantIdentity, t)
	}
	if bytes.Equal(signer, p.trusted.PublicKey.Ed25519()) {
		return "pinned", nil
	}
	lin, err := keys.Chain(p.trusted.PublicKey.Ed25519(), signer, p.rotations)
	if err != nil {
		return "", fmt.Errorf("signed by key %s, not the pinned key %s: %w", keys.Fingerprint(signer), p.trusted.Fingerprint(), err)
	}
	at, err := time.Parse(time.RFC3339, probedAt)
	if err != nil {
		return "", err
	}
	if at.After(lin.RetiredAt) {
		return "", fmt.Errorf("signed by key %s, which was retired at %s, before this report (%s)",
			keys.Fingerprint(signer), lin.RetiredAt.Format(time.RFC3339), probedAt)
	}
	return "rotated", nil
}

// linkBox finds the box report a card names, among the boxes given or
// beside the card, and checks that the same key signed both.
func linkBox(card *reportFile, boxes map[string]*reportFile, searchBeside bool) (string, error) {
	want := card.card.BoxReport
	box, ok := boxes[want]
	if !ok && searchBeside {
		box, ok = findBoxBeside(card.path, want)
	}
	if !ok {
		return "", fmt.Errorf("box report %s… not found (it was altered, or is elsewhere: pass --box)", want[:12])
	}
	if !bytes.Equal(box.verified.PublicKey, card.verified.PublicKey) {
		return "", fmt.Errorf("box %s was signed by another key", box.path)
	}
	return box.path, nil
}

func findBoxBeside(cardPath, hash string) (*reportFile, bool) {
	m, _ := filepath.Glob(filepath.Join(filepath.Dir(cardPath), "box-*.appraisal.json"))
	for _, f := range m {
		r, _, err := readReport(f)
		if err == nil && r.box != nil && r.verified.Hash == hash {
			return r, true
		}
	}
	return nil, false
}

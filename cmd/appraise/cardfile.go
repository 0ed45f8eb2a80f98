package main

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/everycycle/appraise/keys"
	"github.com/everycycle/appraise/schema"
	"github.com/everycycle/appraise/verify"
)

// cardHint is what compare and plot say when given something else.
const cardHint = "give a card report: a card-*.appraisal.json file as appraise writes it (appraise verify DIR lists them)"

// readCardFile reads and verifies one card report and judges its key by
// pol: an unvouched-for or damaged card is exit 3, a file that is plainly
// something else exit 2; with no key pinned it warns.
func readCardFile(e *env, g *globals, path string, tf trustFlags, pol verify.Policy) (*schema.CardPayload, error) {
	data, err := verify.ReadFile(path, verify.MaxFileBytes)
	if err != nil {
		return nil, withCode(exitUsage, err, cardHint)
	}
	if what, code := notACard(data); what != "" {
		return nil, withCode(code, fmt.Errorf("%s is %s, not a card report", path, what), cardHint)
	}
	p, v, err := schema.ReadCard(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	trust, class, err := pol.Judge(v)
	if err != nil {
		verdict := verify.Verdict{Class: class, Tenant: v.Signature.TenantIdentity, Fingerprint: keys.Fingerprint(v.PublicKey)}
		return nil, withCode(exitVerify, fmt.Errorf("%s: %w", path, err), tf.rotationsHint(e, g, pol, []verify.Verdict{verdict}))
	}
	if trust == verify.TrustUnpinned {
		warnUnpinned(e, path, verify.Verdict{Fingerprint: keys.Fingerprint(v.PublicKey)})
	}
	return p, nil
}

// notACard says what data is when it is not a card report, with its exit
// code; "" when it has a card's shape.
func notACard(data []byte) (string, int) {
	if len(bytes.TrimSpace(data)) == 0 {
		return "empty", exitVerify
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(data, &top); err != nil {
		var anything any
		if json.Unmarshal(data, &anything) == nil {
			return "JSON but not an object", exitUsage
		}
		return fmt.Sprintf("not JSON (%v)", err), exitVerify
	}
	return otherKind(data, top), exitUsage
}

// otherKind names what a JSON object is, "" for a card's shape.
func otherKind(data []byte, top map[string]json.RawMessage) string {
	var doc struct {
		Format  string `json:"format"`
		Payload struct {
			Statement  string          `json:"statement"`
			Host       json.RawMessage `json:"host"`
			Capability json.RawMessage `json:"capability"`
		} `json:"payload"`
	}
	_ = json.Unmarshal(data, &doc) // members of other types stay zero
	switch {
	case doc.Payload.Capability != nil:
		return ""
	case doc.Payload.Host != nil:
		return "a box report (the run's host figures)"
	case doc.Payload.Statement == "appraise-key-rotation":
		return "a key-rotation statement"
	case doc.Format == "appraise-public-key":
		return "a public key (appraise keys export-public)"
	case doc.Format == "appraise-tenant-key":
		return "a tenant key file"
	case top["$schema"] != nil:
		return "a JSON Schema (appraise schema)"
	}
	return "JSON that is no report appraise writes"
}

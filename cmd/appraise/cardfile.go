package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"

	"github.com/everycycle/appraise/schema"
)

// cardHint is what compare and plot say when given something else.
const cardHint = "give a card report: a card-*.appraisal.json file as appraise writes it (appraise verify DIR lists them)"

// readCardFile reads and verifies one card report. A file that is plainly
// something else (a box report, a key, a schema) is a usage error (exit 2)
// that says what the file is; one that is empty or not JSON may be a
// damaged card (exit 3, as for a card that fails to verify).
func readCardFile(path string) (*schema.CardPayload, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if what, code := notACard(data); what != "" {
		return nil, withCode(code, fmt.Errorf("%s is %s, not a card report", path, what), cardHint)
	}
	p, _, err := schema.ReadCard(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return p, nil
}

// notACard says in words what data is when it is not a card report, with
// the exit code that goes with it, and "" when it has a card's shape
// (whether it verifies is schema.ReadCard's to say).
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

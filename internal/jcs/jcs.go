// Package jcs is the project's one RFC 8785 (JCS) canonicaliser: schema
// hashes and signs reports with it and keys signs rotation statements with
// it, so both sign the bytes one implementation writes. It sits beneath
// both and imports nothing of the project.
package jcs

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/go-json-experiment/json/jsontext"
)

// Marshal returns the canonical bytes of v's encoding/json form.
func Marshal(v any) ([]byte, error) {
	raw, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("jcs: marshal: %w", err)
	}
	return Canonicalize(raw)
}

// Canonicalize returns the canonical form of a JSON text, leaving raw
// as it was. It refuses duplicate member names and invalid UTF-8.
func Canonicalize(raw []byte) ([]byte, error) {
	out := jsontext.Value(bytes.Clone(raw))
	if err := out.Canonicalize(); err != nil {
		return nil, fmt.Errorf("jcs: canonicalize: %w", err)
	}
	return out, nil
}

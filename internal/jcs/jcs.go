// Package jcs is the one RFC 8785 (JCS) canonicaliser that schema and keys sign with.
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

// Canonicalize returns raw's canonical form; duplicate names and invalid UTF-8 are errors.
func Canonicalize(raw []byte) ([]byte, error) {
	out := jsontext.Value(bytes.Clone(raw))
	if err := out.Canonicalize(); err != nil {
		return nil, fmt.Errorf("jcs: canonicalize: %w", err)
	}
	return out, nil
}

package schema

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/everycycle/appraise/internal/jcs"
)

// ErrMalformed is wrapped by every failure to read a report's JSON.
var ErrMalformed = errors.New("malformed report")

// Canonical returns the RFC 8785 (JCS) canonical bytes of v: the bytes
// that are hashed and signed.
func Canonical(v any) ([]byte, error) {
	c, err := jcs.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("schema: %w", err)
	}
	return c, nil
}

// CanonicalizeJSON returns the RFC 8785 canonical form of a JSON text.
// The text is first read strictly (see DecodeStrict).
func CanonicalizeJSON(raw []byte) ([]byte, error) {
	if err := checkStrict(raw); err != nil {
		return nil, err
	}
	return canonicalize(raw)
}

// canonicalize is CanonicalizeJSON for a text already read strictly (or
// written by this package).
func canonicalize(raw []byte) ([]byte, error) {
	c, err := jcs.Canonicalize(raw)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrMalformed, err)
	}
	return c, nil
}

// Hash returns the lowercase hex SHA-256 of v's canonical bytes, the form
// a card uses to name its box report.
func Hash(v any) (string, error) {
	c, err := Canonical(v)
	if err != nil {
		return "", err
	}
	return hashBytes(c), nil
}

// hashBytes is the lowercase hex SHA-256 of canonical bytes.
func hashBytes(canonical []byte) string {
	sum := sha256.Sum256(canonical)
	return hex.EncodeToString(sum[:])
}

// checkStrict rejects what RFC 8785 and this format forbid before any
// value is looked at: duplicate member names, invalid UTF-8, lone
// surrogates, and anything after the top-level value.
func checkStrict(raw []byte) error {
	dec := jsontext.NewDecoder(bytes.NewReader(raw))
	if _, err := dec.ReadValue(); err != nil {
		return fmt.Errorf("%w: %v", ErrMalformed, err)
	}
	if _, err := dec.ReadToken(); err == nil {
		return fmt.Errorf("%w: trailing data after the top-level value", ErrMalformed)
	} else if !errors.Is(err, io.EOF) {
		return fmt.Errorf("%w: trailing data: %v", ErrMalformed, err)
	}
	return nil
}

// DecodeStrict reads one JSON value into v, rejecting duplicate member
// names, invalid UTF-8, lone surrogates, numbers that do not fit (such as
// 1e400, which would be infinite), unknown members, member names that
// differ only in case, and trailing data.
func DecodeStrict(raw []byte, v any) error {
	if err := checkStrict(raw); err != nil {
		return err
	}
	return decodeChecked(raw, v)
}

// decodeChecked is DecodeStrict for a text checkStrict already passed
// (jsonv2 refuses duplicate names and invalid UTF-8 again on its own).
func decodeChecked(raw []byte, v any) error {
	if err := jsonv2.Unmarshal(raw, v, jsonv2.RejectUnknownMembers(true)); err != nil {
		return fmt.Errorf("%w: %v", ErrMalformed, err)
	}
	return nil
}

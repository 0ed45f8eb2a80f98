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

// Canonical returns the RFC 8785 (JCS) bytes of v, which are hashed and signed.
func Canonical(v any) ([]byte, error) {
	c, err := jcs.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("schema: %w", err)
	}
	return c, nil
}

// CanonicalizeJSON returns the RFC 8785 form of a JSON text read strictly.
func CanonicalizeJSON(raw []byte) ([]byte, error) {
	if err := checkStrict(raw); err != nil {
		return nil, err
	}
	return canonicalize(raw)
}

// canonicalize is CanonicalizeJSON for a text already read strictly.
func canonicalize(raw []byte) ([]byte, error) {
	c, err := jcs.Canonicalize(raw)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrMalformed, err)
	}
	return c, nil
}

// Hash returns the hex SHA-256 of v's canonical bytes, as a card names its box.
func Hash(v any) (string, error) {
	c, err := Canonical(v)
	if err != nil {
		return "", err
	}
	return hashBytes(c), nil
}

func hashBytes(canonical []byte) string {
	sum := sha256.Sum256(canonical)
	return hex.EncodeToString(sum[:])
}

// checkStrict rejects duplicate names, invalid UTF-8, lone surrogates and trailing data.
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

// DecodeStrict reads one JSON value into v, rejecting duplicate, unknown or
// case-folded member names, invalid UTF-8, lone surrogates, numbers that
// do not fit and trailing data.
func DecodeStrict(raw []byte, v any) error {
	if err := checkStrict(raw); err != nil {
		return err
	}
	return decodeChecked(raw, v)
}

// decodeChecked is DecodeStrict for a text checkStrict already passed.
func decodeChecked(raw []byte, v any) error {
	if err := jsonv2.Unmarshal(raw, v, jsonv2.RejectUnknownMembers(true)); err != nil {
		return fmt.Errorf("%w: %v", ErrMalformed, err)
	}
	return nil
}

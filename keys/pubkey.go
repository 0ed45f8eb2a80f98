package keys

import (
	"bytes"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"regexp"
	"time"

	jsonv2 "github.com/go-json-experiment/json"
)

// PublicKey is a tenant's Ed25519 public key. Its text form, from String
// and for ParsePublicKey, is padded standard base64.
type PublicKey struct {
	key ed25519.PublicKey
}

// NewPublicKey wraps a raw Ed25519 public key, which must be 32 bytes.
func NewPublicKey(k ed25519.PublicKey) (*PublicKey, error) {
	if len(k) != ed25519.PublicKeySize {
		return nil, fmt.Errorf("keys: public key is %d bytes, want %d", len(k), ed25519.PublicKeySize)
	}
	return &PublicKey{key: bytes.Clone(k)}, nil
}

// ParsePublicKey parses exactly the text form PublicKey.String writes.
func ParsePublicKey(s string) (*PublicKey, error) {
	raw, err := base64.StdEncoding.Strict().DecodeString(s)
	if err != nil {
		return nil, fmt.Errorf("keys: public key is not standard base64: %w", err)
	}
	k, err := NewPublicKey(raw)
	if err != nil {
		return nil, err
	}
	if k.String() != s {
		return nil, fmt.Errorf("keys: public key %q is not in canonical base64 form", s)
	}
	return k, nil
}

// String returns the key in padded standard base64.
func (k *PublicKey) String() string {
	return base64.StdEncoding.EncodeToString(k.key)
}

// Ed25519 returns a copy of the raw key.
func (k *PublicKey) Ed25519() ed25519.PublicKey {
	return bytes.Clone(k.key)
}

// Fingerprint returns Fingerprint of the raw key.
func (k *PublicKey) Fingerprint() string {
	return Fingerprint(k.key)
}

// Equal reports whether k and o are the same key.
func (k *PublicKey) Equal(o *PublicKey) bool {
	return o != nil && k.key.Equal(o.key)
}

// Fingerprint returns the first 16 hex digits of the SHA-256 of pub, for
// display and file names; trust decisions compare full keys.
func Fingerprint(pub ed25519.PublicKey) string {
	sum := sha256.Sum256(pub)
	return hex.EncodeToString(sum[:8])
}

// Verify reports whether sig is pub's valid Ed25519 signature of msg; a key
// of the wrong length gives false, not a panic.
func Verify(pub ed25519.PublicKey, msg, sig []byte) bool {
	return len(pub) == ed25519.PublicKeySize && ed25519.Verify(pub, msg, sig)
}

var tenantPattern = regexp.MustCompile(`^[a-z0-9][a-z0-9._-]{0,63}$`)

// ValidateTenant returns an error wrapping ErrInvalidTenant unless name is
// 1 to 64 of [a-z0-9._-], starting with a letter or digit.
func ValidateTenant(name string) error {
	if !tenantPattern.MatchString(name) {
		return fmt.Errorf("keys: tenant %q: %w: must match %s", name, ErrInvalidTenant, tenantPattern)
	}
	return nil
}

// KeyInfo is the public part of a stored key.
type KeyInfo struct {
	Tenant     string
	PublicKey  *PublicKey
	CreatedAt  time.Time  // UTC, whole seconds
	Protection Protection // empty from ParsePublicKeyFile
}

// Fingerprint returns the key's fingerprint.
func (i *KeyInfo) Fingerprint() string {
	return i.PublicKey.Fingerprint()
}

const publicFormat = "appraise-public-key"

type publicFile struct {
	Format      string `json:"format"`
	Version     string `json:"version"`
	Tenant      string `json:"tenant"`
	PubKey      string `json:"pubkey"`
	Fingerprint string `json:"fingerprint"`
	CreatedAt   string `json:"created_at"`
}

// ExportPublic returns the JSON public key file that ParsePublicKeyFile reads.
func (i *KeyInfo) ExportPublic() ([]byte, error) {
	b, err := json.MarshalIndent(publicFile{
		Format:      publicFormat,
		Version:     formatVersion,
		Tenant:      i.Tenant,
		PubKey:      i.PublicKey.String(),
		Fingerprint: i.Fingerprint(),
		CreatedAt:   formatTime(i.CreatedAt),
	}, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("keys: export public key: %w", err)
	}
	return append(b, '\n'), nil
}

// ParsePublicKeyFile reads what ExportPublic writes, or a bare base64 key,
// for which only PublicKey is set.
func ParsePublicKeyFile(b []byte) (*KeyInfo, error) {
	b = bytes.TrimSpace(b)
	if !bytes.HasPrefix(b, []byte("{")) {
		k, err := ParsePublicKey(string(b))
		if err != nil {
			return nil, err
		}
		return &KeyInfo{PublicKey: k}, nil
	}
	var f publicFile
	if err := decodeStrict(b, &f); err != nil {
		return nil, fmt.Errorf("keys: public key file: %w", err)
	}
	return f.info()
}

func (f *publicFile) info() (*KeyInfo, error) {
	if f.Format != publicFormat || f.Version != formatVersion {
		return nil, fmt.Errorf("keys: public key file: format %q version %q, want %q version %q",
			f.Format, f.Version, publicFormat, formatVersion)
	}
	if err := ValidateTenant(f.Tenant); err != nil {
		return nil, err
	}
	k, err := ParsePublicKey(f.PubKey)
	if err != nil {
		return nil, err
	}
	if f.Fingerprint != k.Fingerprint() {
		return nil, fmt.Errorf("keys: public key file: fingerprint %q does not match the key (%s)", f.Fingerprint, k.Fingerprint())
	}
	t, err := parseTime(f.CreatedAt)
	if err != nil {
		return nil, fmt.Errorf("keys: public key file: created_at: %w", err)
	}
	return &KeyInfo{Tenant: f.Tenant, PublicKey: k, CreatedAt: t}, nil
}

func formatTime(t time.Time) string {
	return t.UTC().Truncate(time.Second).Format(time.RFC3339)
}

// parseTime accepts only what formatTime writes.
func parseTime(s string) (time.Time, error) {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		return time.Time{}, err
	}
	if formatTime(t) != s {
		return time.Time{}, fmt.Errorf("time %q is not RFC 3339 UTC with whole seconds", s)
	}
	return t.UTC(), nil
}

// decodeStrict decodes one JSON value into v, refusing duplicate, unknown or
// case-folded names, invalid UTF-8 and trailing data.
func decodeStrict(b []byte, v any) error {
	return jsonv2.Unmarshal(b, v, jsonv2.RejectUnknownMembers(true))
}

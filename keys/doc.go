// Package keys manages a tenant's Ed25519 signing key, age-encrypted on
// disk and rotated with signed statements. Init creates it, LoadSigner
// unlocks it and Rotate replaces it, whole, by one rename; verifiers use
// ParsePublicKeyFile, Verify and Rotations. A retired key vouches only for the
// digests its rotation statement lists.
package keys

import "errors"

// Sentinel errors, wrapped with context; test for them with errors.Is.
var (
	ErrKeyExists  = errors.New("a key already exists (rotate it with `appraise keys rotate`)")
	ErrNoKey      = errors.New("no key (create one with `appraise keys init`)")
	ErrCorruptKey = errors.New("corrupt key file")
	// ErrInsecurePermissions: a key file is open to group or others, a key
	// directory is writable by them, or either belongs to another user.
	ErrInsecurePermissions = errors.New("unsafe permissions: others could read or replace the key")
	ErrWrongPassphrase     = errors.New("wrong passphrase")
	ErrWrongIdentity       = errors.New("no identity matches the key's recipients (pass the right --identity file)")
	ErrPassphraseProtected = errors.New("the key is protected by a passphrase, not encrypted to age recipients")
	ErrRecipientsProtected = errors.New("the key is encrypted to age recipients, not protected by a passphrase")
	ErrNoPassphrase        = errors.New("no passphrase: set APPRAISE_PASSPHRASE or pass --passphrase-file")
	ErrEmptyPassphrase     = errors.New("empty passphrase")
	ErrPassphraseMismatch  = errors.New("passphrases do not match")
	ErrInvalidTenant       = errors.New("invalid tenant name")
	ErrBadSignature        = errors.New("bad signature")
	ErrNotInChain          = errors.New("key is not a predecessor of the trusted key")
	ErrRotated             = errors.New("the key was rotated: it is no longer the current key")
	ErrBusy                = errors.New("key directory is in use by another appraise process")
	ErrNoTTY               = errors.New("no terminal")
)

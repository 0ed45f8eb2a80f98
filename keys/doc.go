// Package keys manages a tenant's Ed25519 signing key: it generates the key,
// keeps the private half only age-encrypted on disk, rotates it with signed
// rotation statements, and signs and verifies bytes. It knows nothing of GPUs
// or reports; callers hand it the bytes to sign.
//
// # Where to start
//
// [ResolveDir] finds the key directory and [PassphraseSource] finds the
// passphrase. [Init] creates the first key, [LoadPublic] reads everything that
// is not secret, [LoadSigner] unlocks the current key into a [Signer], and
// [Rotate] replaces it. On the verifying side, [ParsePublicKey] and
// [ParsePublicKeyFile] read trusted keys, [Verify] checks a signature, and
// [Chain] follows [RotationStatement]s from a retired key to a trusted one.
//
// # Encryption at rest
//
// The private key (its 32-byte Ed25519 seed) is written only as an armored age
// file, never in clear, not even in a temporary file. An [Encryption] chooses
// an scrypt passphrase or age recipients (X25519 "age1…", hybrid "age1pq1…",
// or plugin recipients); a [Decryption] carries the passphrase or the
// identities that unlock it again.
//
// # Directory layout
//
//	<dir>/                                     0700, see ResolveDir
//	  key.json                                 0600  the current key
//	  archive/                                 0700
//	    <created_at>-<fingerprint>.json        0600  retired key.json files, byte for byte
//	  rotations/                               0700
//	    <rotated_at>-<old fp>-<new fp>.json    0600  rotation statements
//	  signed/                                  0700
//	    <fingerprint>                          0600  the signing ledger: one SHA-256 digest (hex) per line
//	  .lock                                    0600  flock(2) held by Init and Rotate
//	  .<name>.tmp-<random>                     leftovers of interrupted writes
//
// Times in file names are UTC, "20060102T150405Z"; a fingerprint is the first
// 16 hex digits of the SHA-256 of the raw public key. key.json is a JSON
// object with the fields format ("appraise-tenant-key"), version ("1"),
// tenant, pubkey (standard base64 with padding), created_at (RFC 3339 UTC),
// protection ("passphrase" or "recipients"), private_key (the armored age
// ciphertext of the seed) and, for a key made by Rotate, rotation: the
// statement that introduced it.
//
// key.json is the only file that says which key is current, and it is only
// ever replaced whole, by one rename of a fully written and synced temporary
// file, so at every instant exactly one valid current key exists. Temporary
// files start with a dot and are never read; Init and Rotate delete them.
// Every key file must have mode 0600 or stricter, and the key directory and
// its subdirectories must not be writable by group or others; both must
// belong to the user running appraise. Anything else is refused with
// [ErrInsecurePermissions], naming the chmod (or chown) that fixes it.
//
// # Rotation
//
// [Rotate] archives the old key.json, then swaps in the new one, then copies
// the new key's rotation statement into rotations/. A crash anywhere leaves
// either the old or the new key current, and the old key is on disk in one of
// the two places before key.json stops naming it. The statement travels inside
// the new key.json, so it is committed by the same rename; rotations/ is a
// copy that Rotate repairs and [LoadPublic] does not depend on.
//
// # What a retired key still vouches for
//
// A signature carries no trusted time: whoever holds a retired key can sign a
// report today and date it before the rotation. So the statement that retires
// a key lists the SHA-256 digest of every message the key signed until then,
// read from its signing ledger: [Signer.Sign] remembers each digest and
// [RecordSigned] appends them to signed/<fingerprint>, synced, before the
// caller publishes what was signed. A verifier that reaches a retired key
// through [Chain] accepts from it only what the first statement of the path
// vouches for ([RotationStatement.Vouches]); a format-1 statement, written
// before the list existed, vouches for nothing.
package keys

import "errors"

// Sentinel errors, wrapped with context; test for them with errors.Is.
var (
	// ErrKeyExists: Init found a key already in the directory.
	ErrKeyExists = errors.New("a key already exists (rotate it with `appraise keys rotate`)")
	// ErrNoKey: the directory holds no current key.
	ErrNoKey = errors.New("no key (create one with `appraise keys init`)")
	// ErrCorruptKey: a key file is malformed or inconsistent.
	ErrCorruptKey = errors.New("corrupt key file")
	// ErrInsecurePermissions: a key file is readable or writable by group or
	// others, a key directory is writable by them, or either belongs to
	// another user.
	ErrInsecurePermissions = errors.New("unsafe permissions: others could read or replace the key")
	// ErrWrongPassphrase: the passphrase does not decrypt a passphrase-protected key.
	ErrWrongPassphrase = errors.New("wrong passphrase")
	// ErrWrongIdentity: no identity decrypts a key encrypted to age recipients.
	ErrWrongIdentity = errors.New("no identity matches the key's recipients (pass the right --identity file)")
	// ErrPassphraseProtected: age identities were given for a key protected by a passphrase.
	ErrPassphraseProtected = errors.New("the key is protected by a passphrase, not encrypted to age recipients")
	// ErrRecipientsProtected: a passphrase was given for a key encrypted to age recipients.
	ErrRecipientsProtected = errors.New("the key is encrypted to age recipients, not protected by a passphrase")
	// ErrNoPassphrase: no passphrase in the environment or a file, and no terminal to ask on.
	ErrNoPassphrase = errors.New("no passphrase: set APPRAISE_PASSPHRASE or pass --passphrase-file")
	// ErrEmptyPassphrase: the passphrase given is empty.
	ErrEmptyPassphrase = errors.New("empty passphrase")
	// ErrPassphraseMismatch: the two passphrases typed at the confirmation prompt differ.
	ErrPassphraseMismatch = errors.New("passphrases do not match")
	// ErrInvalidTenant: a tenant name does not match the allowed pattern.
	ErrInvalidTenant = errors.New("invalid tenant name")
	// ErrBadSignature: a signature does not verify.
	ErrBadSignature = errors.New("bad signature")
	// ErrNotInChain: no chain of verified rotation statements leads from a key to a trusted key.
	ErrNotInChain = errors.New("key is not a predecessor of the trusted key")
	// ErrRotated: the key that signed is no longer the directory's current key.
	ErrRotated = errors.New("the key was rotated: it is no longer the current key")
	// ErrBusy: another process holds the key directory's lock.
	ErrBusy = errors.New("key directory is in use by another appraise process")
	// ErrNoTTY: there is no controlling terminal to prompt on.
	ErrNoTTY = errors.New("no terminal")
)

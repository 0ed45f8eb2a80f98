package keys

import (
	"bytes"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"filippo.io/age/armor"
)

const (
	keyFormat     = "appraise-tenant-key"
	formatVersion = "1"
)

// Signer is an unlocked tenant key, held only in memory with the digests
// of what it signed. It is safe for concurrent use.
type Signer struct {
	tenant string
	priv   ed25519.PrivateKey

	mu       sync.Mutex
	signed   [][sha256.Size]byte // SHA-256 of each message signed
	recorded int                 // how many of signed RecordSigned wrote
}

// GenerateSigner returns a new random key for tenant, held only in memory.
func GenerateSigner(tenant string) (*Signer, error) {
	if err := ValidateTenant(tenant); err != nil {
		return nil, err
	}
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("keys: generate Ed25519 key: %w", err)
	}
	return &Signer{tenant: tenant, priv: priv}, nil
}

// Sign returns the Ed25519 signature of msg, remembering its SHA-256 for RecordSigned.
func (s *Signer) Sign(msg []byte) []byte {
	d := sha256.Sum256(msg)
	s.mu.Lock()
	s.signed = append(s.signed, d)
	s.mu.Unlock()
	return ed25519.Sign(s.priv, msg)
}

// Public returns the raw public key.
func (s *Signer) Public() ed25519.PublicKey {
	return bytes.Clone(s.priv.Public().(ed25519.PublicKey))
}

// PublicKey returns the public key in its text-capable form.
func (s *Signer) PublicKey() *PublicKey {
	return &PublicKey{key: s.Public()}
}

// Tenant returns the tenant that owns the key.
func (s *Signer) Tenant() string {
	return s.tenant
}

// keyFile is key.json and each archived key.
type keyFile struct {
	Format     string             `json:"format"`
	Version    string             `json:"version"`
	Tenant     string             `json:"tenant"`
	PubKey     string             `json:"pubkey"`
	CreatedAt  string             `json:"created_at"`
	Protection Protection         `json:"protection"`
	PrivateKey string             `json:"private_key"`
	Rotation   *RotationStatement `json:"rotation,omitempty"`
}

type storedKey struct {
	info     KeyInfo
	armored  string
	rotation *RotationStatement // nil for a key made by Init
	raw      []byte             // the file's bytes, archived verbatim
}

func sealKey(s *Signer, created time.Time, enc Encryption, rot *RotationStatement) ([]byte, error) {
	prot, err := enc.protection()
	if err != nil {
		return nil, err
	}
	armored, err := encryptSeed(s.priv.Seed(), enc)
	if err != nil {
		return nil, err
	}
	b, err := json.MarshalIndent(keyFile{
		Format: keyFormat, Version: formatVersion, Tenant: s.tenant,
		PubKey: s.PublicKey().String(), CreatedAt: formatTime(created),
		Protection: prot, PrivateKey: armored, Rotation: rot,
	}, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("keys: encode key file: %w", err)
	}
	return append(b, '\n'), nil
}

// readKey reads and checks a key file. A missing file wraps fs.ErrNotExist.
func readKey(path string) (*storedKey, error) {
	raw, err := readSecure(path)
	if err != nil {
		return nil, err
	}
	var f keyFile
	if err := decodeStrict(raw, &f); err != nil {
		return nil, fmt.Errorf("keys: %s: %w: %w", path, ErrCorruptKey, err)
	}
	k, err := f.check()
	if err != nil {
		return nil, fmt.Errorf("keys: %s: %w: %w", path, ErrCorruptKey, err)
	}
	k.raw = raw
	return k, nil
}

func (f *keyFile) check() (*storedKey, error) {
	if f.Format != keyFormat || f.Version != formatVersion {
		return nil, fmt.Errorf("format %q version %q, want %q version %q", f.Format, f.Version, keyFormat, formatVersion)
	}
	if err := ValidateTenant(f.Tenant); err != nil {
		return nil, err
	}
	pub, err := ParsePublicKey(f.PubKey)
	if err != nil {
		return nil, err
	}
	created, err := parseTime(f.CreatedAt)
	if err != nil {
		return nil, fmt.Errorf("created_at: %w", err)
	}
	if f.Protection != ProtectionPassphrase && f.Protection != ProtectionRecipients {
		return nil, fmt.Errorf("unknown protection %q", f.Protection)
	}
	if !strings.HasPrefix(f.PrivateKey, armor.Header) {
		return nil, errors.New("private_key is not an armored age file")
	}
	if r := f.Rotation; r != nil && (!r.NewKey.Equal(pub.key) || r.Tenant != f.Tenant) {
		return nil, errors.New("embedded rotation statement names another key or tenant")
	}
	info := KeyInfo{Tenant: f.Tenant, PublicKey: pub, CreatedAt: created, Protection: f.Protection}
	return &storedKey{info: info, armored: f.PrivateKey, rotation: f.Rotation}, nil
}

func (k *storedKey) unlock(dec Decryption) (*Signer, error) {
	seed, err := decryptSeed(k.armored, dec)
	if err != nil {
		return nil, err
	}
	s := &Signer{tenant: k.info.Tenant, priv: ed25519.NewKeyFromSeed(seed)}
	clear(seed)
	if !s.PublicKey().Equal(k.info.PublicKey) {
		return nil, fmt.Errorf("keys: %w: private key does not match pubkey", ErrCorruptKey)
	}
	return s, nil
}

func (k *storedKey) archiveName() string {
	return k.info.CreatedAt.Format(fileTimeLayout) + "-" + k.info.Fingerprint() + ".json"
}

// readCurrent reads dir/key.json, mapping its absence to ErrNoKey.
func readCurrent(dir string) (*storedKey, error) {
	if err := checkDirs(dir); errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("keys: %s: %w", dir, ErrNoKey)
	} else if err != nil {
		return nil, err
	}
	path := filepath.Join(dir, keyFileName)
	k, err := readKey(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("keys: %s: %w", dir, ErrNoKey)
	}
	return k, err
}

// Init creates a new key for tenant in dir, encrypted as enc says, or ErrKeyExists.
func Init(dir, tenant string, enc Encryption) (*KeyInfo, error) {
	s, err := GenerateSigner(tenant)
	if err != nil {
		return nil, err
	}
	if _, err := enc.protection(); err != nil {
		return nil, err
	}
	if err := makeDirs(dir); err != nil {
		return nil, err
	}
	unlock, err := lockDir(dir)
	if err != nil {
		return nil, err
	}
	defer unlock()
	if err := removeTemps(dir); err != nil {
		return nil, err
	}
	if _, err := os.Lstat(filepath.Join(dir, keyFileName)); err == nil {
		return nil, fmt.Errorf("keys: %s: %w", dir, ErrKeyExists)
	} else if !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("keys: %w", err)
	}
	data, err := sealKey(s, time.Now(), enc, nil)
	if err != nil {
		return nil, err
	}
	if err := writeFile(dir, keyFileName, data, false); err != nil {
		return nil, err
	}
	k, err := readCurrent(dir)
	if err != nil {
		return nil, err
	}
	return &k.info, nil
}

// LoadSigner unlocks the current key in dir, or returns ErrNoKey,
// ErrCorruptKey or an error saying why dec does not unlock it.
func LoadSigner(dir string, dec Decryption) (*Signer, error) {
	k, err := readCurrent(dir)
	if err != nil {
		return nil, err
	}
	return k.unlock(dec)
}

// LoadArchivedSigner unlocks the retired key with fingerprint, or returns ErrNoKey.
func LoadArchivedSigner(dir, fingerprint string, dec Decryption) (*Signer, error) {
	archived, err := readArchive(dir)
	if err != nil {
		return nil, err
	}
	for _, k := range archived {
		if k.info.Fingerprint() == fingerprint {
			return k.unlock(dec)
		}
	}
	return nil, fmt.Errorf("keys: archived key %s: %w", fingerprint, ErrNoKey)
}

func readArchive(dir string) ([]*storedKey, error) {
	adir := filepath.Join(dir, archiveDirName)
	names, err := listJSON(adir)
	if err != nil {
		return nil, err
	}
	var ks []*storedKey
	for _, n := range names {
		k, err := readKey(filepath.Join(adir, n))
		if err != nil {
			return nil, err
		}
		ks = append(ks, k)
	}
	slices.SortStableFunc(ks, func(a, b *storedKey) int { return a.info.CreatedAt.Compare(b.info.CreatedAt) })
	return ks, nil
}

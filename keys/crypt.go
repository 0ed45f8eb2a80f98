package keys

import (
	"bufio"
	"crypto/ed25519"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"filippo.io/age"
	"filippo.io/age/armor"
	"filippo.io/age/plugin"
)

// Protection names how a stored private key is encrypted.
type Protection string

const (
	// ProtectionPassphrase: age scrypt, unlocked with a passphrase.
	ProtectionPassphrase Protection = "passphrase"
	// ProtectionRecipients: age recipients, unlocked with identities.
	ProtectionRecipients Protection = "recipients"
)

// Encryption says how to encrypt a new private key. Set exactly one of
// Passphrase and Recipients; age does not mix the two.
type Encryption struct {
	// Passphrase encrypts with age's scrypt recipient.
	Passphrase string
	// Recipients encrypts to age recipients; see ParseRecipient.
	Recipients []age.Recipient
	// ScryptWorkFactor is log2 of the scrypt work factor used with
	// Passphrase, 1 to 30; 0 means age's default (18, about a second). It
	// exists so that tests can make scrypt cheap.
	ScryptWorkFactor int
}

// Decryption says how to unlock a stored private key: with a passphrase, with
// age identities (see ParseIdentities), or with both.
type Decryption struct {
	// Passphrase unlocks a passphrase-protected key.
	Passphrase string
	// Identities unlock a key encrypted to age recipients.
	Identities []age.Identity
}

// protection checks e and says which kind it is.
func (e Encryption) protection() (Protection, error) {
	switch {
	case e.Passphrase != "" && len(e.Recipients) > 0:
		return "", errors.New("keys: encryption: set a passphrase or recipients, not both")
	case len(e.Recipients) > 0:
		return ProtectionRecipients, nil
	case e.Passphrase != "":
		if e.ScryptWorkFactor < 0 || e.ScryptWorkFactor > 30 {
			return "", fmt.Errorf("keys: encryption: scrypt work factor %d is outside 1..30", e.ScryptWorkFactor)
		}
		return ProtectionPassphrase, nil
	}
	return "", fmt.Errorf("keys: encryption: %w", ErrEmptyPassphrase)
}

// recipients returns the age recipients for e.
func (e Encryption) recipients() ([]age.Recipient, error) {
	if len(e.Recipients) > 0 {
		return e.Recipients, nil
	}
	r, err := age.NewScryptRecipient(e.Passphrase)
	if err != nil {
		return nil, fmt.Errorf("keys: scrypt recipient: %w", err)
	}
	if e.ScryptWorkFactor != 0 {
		r.SetWorkFactor(e.ScryptWorkFactor)
	}
	return []age.Recipient{r}, nil
}

// identities returns the age identities for d.
func (d Decryption) identities() ([]age.Identity, error) {
	ids := slices.Clone(d.Identities)
	if d.Passphrase != "" {
		id, err := age.NewScryptIdentity(d.Passphrase)
		if err != nil {
			return nil, fmt.Errorf("keys: scrypt identity: %w", err)
		}
		ids = append(ids, id)
	}
	if len(ids) == 0 {
		return nil, fmt.Errorf("keys: nothing to unlock the key with: %w", ErrNoPassphrase)
	}
	return ids, nil
}

// encryptSeed encrypts an Ed25519 seed as an armored age file.
func encryptSeed(seed []byte, enc Encryption) (string, error) {
	rs, err := enc.recipients()
	if err != nil {
		return "", err
	}
	var out strings.Builder
	aw := armor.NewWriter(&out)
	w, err := age.Encrypt(aw, rs...)
	if err != nil {
		return "", fmt.Errorf("keys: age encrypt: %w", err)
	}
	if _, err := w.Write(seed); err != nil {
		return "", fmt.Errorf("keys: age encrypt: %w", err)
	}
	if err := w.Close(); err != nil {
		return "", fmt.Errorf("keys: age encrypt: %w", err)
	}
	if err := aw.Close(); err != nil {
		return "", fmt.Errorf("keys: age armor: %w", err)
	}
	return out.String(), nil
}

// decryptSeed decrypts what encryptSeed wrote and checks its length.
func decryptSeed(armored string, dec Decryption) ([]byte, error) {
	ids, err := dec.identities()
	if err != nil {
		return nil, err
	}
	r, err := age.Decrypt(armor.NewReader(strings.NewReader(armored)), ids...)
	if err != nil {
		return nil, decryptError(err, dec)
	}
	seed, err := io.ReadAll(io.LimitReader(r, ed25519.SeedSize+1))
	if err != nil {
		return nil, fmt.Errorf("keys: age decrypt: %w: %w", ErrCorruptKey, err)
	}
	if len(seed) != ed25519.SeedSize {
		return nil, fmt.Errorf("keys: %w: decrypted private key is %d bytes, want %d", ErrCorruptKey, len(seed), ed25519.SeedSize)
	}
	return seed, nil
}

// decryptError maps age's "no identity matched" onto ErrWrongPassphrase for
// a passphrase-protected key tried with a passphrase, ErrPassphraseProtected
// for one tried with identities alone, ErrRecipientsProtected for a key
// encrypted to recipients tried with a passphrase alone, and
// ErrWrongIdentity otherwise.
func decryptError(err error, dec Decryption) error {
	var noMatch *age.NoIdentityMatchError
	if !errors.As(err, &noMatch) {
		return fmt.Errorf("keys: age decrypt: %w: %w", ErrCorruptKey, err)
	}
	scrypt := slices.Contains(noMatch.StanzaTypes, "scrypt")
	switch {
	case scrypt && dec.Passphrase == "":
		return fmt.Errorf("keys: unlock: %w", ErrPassphraseProtected)
	case scrypt:
		return fmt.Errorf("keys: unlock: %w", ErrWrongPassphrase)
	case len(dec.Identities) == 0:
		return fmt.Errorf("keys: unlock: %w", ErrRecipientsProtected)
	}
	return fmt.Errorf("keys: unlock: %w", ErrWrongIdentity)
}

// ParseRecipient parses one age recipient: X25519 ("age1…"), hybrid
// post-quantum ("age1pq1…") or plugin ("age1<name>1…"). A plugin recipient
// runs age-plugin-<name> when used and talks to the user through ui; a nil ui
// means a terminal UI that prints to standard error.
func ParseRecipient(s string, ui *plugin.ClientUI) (age.Recipient, error) {
	var (
		r   age.Recipient
		err error
	)
	switch {
	case strings.HasPrefix(s, "age1pq1"):
		r, err = age.ParseHybridRecipient(s)
	case strings.HasPrefix(s, "age1") && strings.Count(s, "1") > 1:
		r, err = plugin.NewRecipient(s, orTerminalUI(ui))
	case strings.HasPrefix(s, "age1"):
		r, err = age.ParseX25519Recipient(s)
	default:
		err = errors.New("not an age recipient (age1…)")
	}
	if err != nil {
		return nil, fmt.Errorf("keys: recipient %q: %w", s, err)
	}
	return r, nil
}

// ParseIdentities reads an age identity file: one identity per line
// ("AGE-SECRET-KEY-1…", "AGE-SECRET-KEY-PQ-1…" or "AGE-PLUGIN-…"), with empty
// lines and lines starting with "#" ignored. ui is as for ParseRecipient.
func ParseIdentities(r io.Reader, ui *plugin.ClientUI) ([]age.Identity, error) {
	var ids []age.Identity
	sc := bufio.NewScanner(io.LimitReader(r, 1<<20))
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		id, err := parseIdentity(line, ui)
		if err != nil {
			// The line may hold a secret: name only its number.
			return nil, fmt.Errorf("keys: identity file line %d: %w", n, err)
		}
		ids = append(ids, id)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("keys: identity file: %w", err)
	}
	if len(ids) == 0 {
		return nil, errors.New("keys: identity file: no identities found")
	}
	return ids, nil
}

// parseIdentity parses one identity line.
func parseIdentity(s string, ui *plugin.ClientUI) (age.Identity, error) {
	switch {
	case strings.HasPrefix(s, "AGE-PLUGIN-"):
		return plugin.NewIdentity(s, orTerminalUI(ui))
	case strings.HasPrefix(s, "AGE-SECRET-KEY-PQ-1"):
		return age.ParseHybridIdentity(s)
	case strings.HasPrefix(s, "AGE-SECRET-KEY-1"):
		return age.ParseX25519Identity(s)
	}
	return nil, errors.New("unknown identity type")
}

// orTerminalUI returns ui, or age's terminal UI printing to standard error.
func orTerminalUI(ui *plugin.ClientUI) *plugin.ClientUI {
	if ui != nil {
		return ui
	}
	printf := func(format string, v ...any) {
		fmt.Fprintf(os.Stderr, "appraise: "+format+"\n", v...)
	}
	warningf := func(format string, v ...any) {
		fmt.Fprintf(os.Stderr, "appraise: warning: "+format+"\n", v...)
	}
	return plugin.NewTerminalUI(printf, warningf)
}

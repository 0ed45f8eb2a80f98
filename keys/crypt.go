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
	ProtectionPassphrase Protection = "passphrase" // age scrypt
	ProtectionRecipients Protection = "recipients" // age recipients, unlocked with identities
)

// Encryption says how to encrypt a new private key. Set exactly one of
// Passphrase and Recipients; age does not mix the two.
type Encryption struct {
	Passphrase string          // for age's scrypt recipient
	Recipients []age.Recipient // see ParseRecipient
	// ScryptWorkFactor is log2 of scrypt's work factor, 1 to 30, or 0 for age's default.
	ScryptWorkFactor int
}

// Decryption says how to unlock a stored private key: with a passphrase, with
// age identities (see ParseIdentities), or with both.
type Decryption struct {
	Passphrase string         // unlocks a passphrase-protected key
	Identities []age.Identity // unlock a key encrypted to recipients
}

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

// decryptError maps age's "no identity matched" onto the secret the key needs.
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

// ParseRecipient parses an X25519, hybrid ("age1pq1…") or plugin age
// recipient. A plugin talks to the user through ui, or stderr if ui is nil.
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

// ParseIdentities reads an age identity file, one identity per line with
// blank and "#" lines ignored; ui is as for ParseRecipient.
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

package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"filippo.io/age"

	fleet "github.com/everycycle/appraise/internal/export"
	"github.com/everycycle/appraise/keys"
)

// keysCmd groups the key-management commands.
type keysCmd struct {
	Init         keysInitCmd   `cmd:"" help:"Create the tenant's signing key (refuses to overwrite one)."`
	Show         keysShowCmd   `cmd:"" help:"Show the current key, archived keys and rotations."`
	ExportPublic keysExportCmd `cmd:"" name:"export-public" help:"Print the public key in the form --trust reads."`
	Rotate       keysRotateCmd `cmd:"" help:"Replace the key; the old one is archived and signs a rotation statement."`
}

// protectionFlags choose how a new private key is encrypted.
type protectionFlags struct {
	Recipient []string `short:"r" placeholder:"RECIPIENT" help:"Encrypt the private key to this age recipient (repeatable) instead of a passphrase."`
}

func (f protectionFlags) encryption(e *env, g *globals, prompt string) (keys.Encryption, error) {
	if len(f.Recipient) == 0 {
		pass, err := passphraseSource(e, g).Passphrase(prompt, true)
		if err != nil {
			return keys.Encryption{}, keyError(err)
		}
		return keys.Encryption{Passphrase: pass}, nil
	}
	var enc keys.Encryption
	for _, s := range f.Recipient {
		r, err := keys.ParseRecipient(s, nil)
		if err != nil {
			return keys.Encryption{}, withCode(exitUsage, err, "")
		}
		enc.Recipients = append(enc.Recipients, r)
	}
	return enc, nil
}

// unlockWith gathers what unlocks the current key: the --identity file
// for age recipients, else a passphrase.
func unlockWith(e *env, g *globals, cur *keys.KeyInfo, prompt string) (keys.Decryption, error) {
	switch {
	case cur.Protection == keys.ProtectionPassphrase && g.Identity != "":
		return keys.Decryption{}, withCode(exitKey, fmt.Errorf("--identity %s: %w", g.Identity, keys.ErrPassphraseProtected),
			"drop --identity, and set APPRAISE_PASSPHRASE or pass --passphrase-file FILE")
	case cur.Protection == keys.ProtectionRecipients && g.Identity == "":
		return keys.Decryption{}, withCode(exitKey, keys.ErrRecipientsProtected, "pass --identity FILE with an age identity of one of the key's recipients")
	case g.Identity == "":
		pass, err := passphraseSource(e, g).Passphrase(prompt, false)
		if err != nil {
			return keys.Decryption{}, keyError(err)
		}
		return keys.Decryption{Passphrase: pass}, nil
	}
	file, err := os.Open(g.Identity)
	if err != nil {
		return keys.Decryption{}, withCode(exitUsage, fmt.Errorf("--identity: %w", err), "")
	}
	defer file.Close()
	ids, err := keys.ParseIdentities(file, nil)
	if err != nil {
		return keys.Decryption{}, withCode(exitKey, err, "")
	}
	return keys.Decryption{Identities: ids}, nil
}

type keysInitCmd struct {
	Tenant string `required:"" placeholder:"NAME" help:"Tenant name recorded in every report (lowercase letters, digits, . _ -)."`
	protectionFlags
}

func (c *keysInitCmd) Run(e *env, g *globals) error {
	dir, err := keyDir(e, g)
	if err != nil {
		return err
	}
	if err := keys.ValidateTenant(c.Tenant); err != nil {
		return withCode(exitUsage, err, "")
	}
	enc, err := c.encryption(e, g, "Passphrase for the new key: ")
	if err != nil {
		return err
	}
	info, err := keys.Init(dir, c.Tenant, enc)
	if err != nil {
		return keyError(err)
	}
	fmt.Fprintf(e.stdout, "created key %s for tenant %q in %s\npublic key: %s\n", info.Fingerprint(), info.Tenant, dir, info.PublicKey)
	return nil
}

type keysShowCmd struct {
	JSON bool `name:"json" help:"Print JSON."`
}

// keyView is what keys show prints for one key.
type keyView struct {
	Tenant      string `json:"tenant"`
	PublicKey   string `json:"pubkey"`
	Fingerprint string `json:"fingerprint"`
	CreatedAt   string `json:"created_at"`
	Protection  string `json:"protection,omitempty"`
}

// rotationView is what keys show prints for one rotation.
type rotationView struct {
	Old       string `json:"old_fingerprint"`
	New       string `json:"new_fingerprint"`
	RotatedAt string `json:"rotated_at"`
}

func view(i *keys.KeyInfo) keyView {
	return keyView{Tenant: i.Tenant, PublicKey: i.PublicKey.String(), Fingerprint: i.Fingerprint(),
		CreatedAt: i.CreatedAt.Format(time.RFC3339), Protection: string(i.Protection)}
}

func (c *keysShowCmd) Run(e *env, g *globals) error {
	dir, info, err := loadPublic(e, g)
	if err != nil {
		return err
	}
	out := struct {
		Dir       string         `json:"dir"`
		Current   keyView        `json:"current"`
		Archived  []keyView      `json:"archived"`
		Rotations []rotationView `json:"rotations"`
	}{Dir: dir, Current: view(info.Current), Archived: []keyView{}, Rotations: []rotationView{}}
	for _, a := range info.Archived {
		out.Archived = append(out.Archived, view(a))
	}
	for _, r := range info.Rotations {
		out.Rotations = append(out.Rotations, rotationView{keys.Fingerprint(r.OldKey), keys.Fingerprint(r.NewKey), r.RotatedAt.Format(time.RFC3339)})
	}
	if c.JSON {
		return e.printJSON(out)
	}
	fmt.Fprintf(e.stdout, "key directory: %s\ntenant:        %s\npublic key:    %s\nfingerprint:   %s\ncreated:       %s\nprotection:    %s\n",
		dir, out.Current.Tenant, out.Current.PublicKey, out.Current.Fingerprint, out.Current.CreatedAt, out.Current.Protection)
	for _, a := range out.Archived {
		fmt.Fprintf(e.stdout, "archived:      %s (created %s)\n", a.Fingerprint, a.CreatedAt)
	}
	for _, r := range out.Rotations {
		fmt.Fprintf(e.stdout, "rotation:      %s -> %s at %s\n", r.Old, r.New, r.RotatedAt)
	}
	return nil
}

type keysExportCmd struct {
	PEM bool `name:"pem" help:"Print it as a PEM public key (PKIX), the form cosign's --key reads."`
}

func (c *keysExportCmd) Run(e *env, g *globals) error {
	_, info, err := loadPublic(e, g)
	if err != nil {
		return err
	}
	export := info.Current.ExportPublic
	if c.PEM {
		export = func() ([]byte, error) { return fleet.PublicKeyPEM(info.Current.PublicKey.Ed25519()) }
	}
	b, err := export()
	if err != nil {
		return err
	}
	_, err = e.stdout.Write(b)
	return err
}

type keysRotateCmd struct {
	protectionFlags
}

func (c *keysRotateCmd) Run(e *env, g *globals) error {
	dir, info, err := loadPublic(e, g)
	if err != nil {
		return err
	}
	if info.Current.Protection == keys.ProtectionRecipients && len(c.Recipient) == 0 {
		return withCode(exitUsage, errors.New("the current key is encrypted to age recipients, and no -r names the new key's"),
			"pass -r RECIPIENT for each recipient of the new key (a rotation keeps the protection it is given, never a passphrase by default)")
	}
	dec, err := unlockWith(e, g, info.Current, "Passphrase of the current key: ")
	if err != nil {
		return err
	}
	enc, err := c.encryption(e, g, "Passphrase for the new key: ")
	if err != nil {
		return err
	}
	st, err := keys.Rotate(dir, dec, enc, time.Now())
	if err != nil {
		return keyError(err)
	}
	old, rot := keys.Fingerprint(st.OldKey), filepath.Join(dir, "rotations")
	_, err = fmt.Fprintf(e.stdout, "rotated key %s -> %s at %s\n"+
		"the old key is archived; the reports it signed verify against the new key through the rotation statement in %s\n"+
		"the public key given to verifiers (%s) is now stale: re-export it ('appraise keys export-public', --pem for cosign) and give them %s with it;\n"+
		"whatever pins the old key (--trust of verify, export and check; a deployment's pub.json) needs the new one, and --rotations %s for the old key's reports\n",
		old, keys.Fingerprint(st.NewKey), st.RotatedAt.Format(time.RFC3339), rot, old, rot, rot)
	return err
}

// keyDir is --key-dir, else APPRAISE_KEY_DIR, else the XDG default.
func keyDir(e *env, g *globals) (string, error) {
	dir, err := keys.ResolveDir(g.KeyDir, e.getenv)
	if err != nil {
		return "", withCode(exitKey, err, "pass --key-dir or set APPRAISE_KEY_DIR")
	}
	return dir, nil
}

// loadPublic reads the key directory's public part: no secret needed.
func loadPublic(e *env, g *globals) (string, *keys.DirInfo, error) {
	dir, err := keyDir(e, g)
	if err != nil {
		return "", nil, err
	}
	info, err := keys.LoadPublic(dir)
	if err != nil {
		return "", nil, keyError(err)
	}
	return dir, info, nil
}

// passphraseSource reads APPRAISE_PASSPHRASE, --passphrase-file or the terminal.
func passphraseSource(e *env, g *globals) keys.PassphraseSource {
	src := keys.PassphraseSource{Getenv: e.getenv, File: g.PassphraseFile}
	if e.isTTY {
		if t, err := keys.OpenTerminal(); err == nil {
			src.TTY = t
		}
	}
	return src
}

// signingKey is the unlocked current key and its directory.
type signingKey struct {
	dir string
	*keys.Signer
}

// unlockSigner loads and unlocks the current key for signing reports.
func unlockSigner(e *env, g *globals) (*signingKey, error) {
	dir, err := keyDir(e, g)
	if err != nil {
		return nil, err
	}
	cur, err := keys.LoadCurrent(dir) // a missing or unsafe key is said before any prompt
	if err != nil {
		return nil, keyError(err)
	}
	dec, err := unlockWith(e, g, cur, "Passphrase of the signing key: ")
	if err != nil {
		return nil, err
	}
	s, err := keys.LoadSigner(dir, dec)
	if err != nil {
		return nil, keyError(err)
	}
	if err := keys.CheckLedger(dir, s); err != nil { // before any probe, not after
		return nil, keyError(fmt.Errorf("the signing ledger, which lets a rotation vouch for what this key signs: %w", err))
	}
	return &signingKey{dir: dir, Signer: s}, nil
}

// record writes what the key signed into its ledger, before publishing.
func (k *signingKey) record() error {
	if err := keys.RecordSigned(k.dir, k.Signer); err != nil {
		return keyError(fmt.Errorf("%w (nothing was written)", err))
	}
	return nil
}

// keyHints are the key conditions exit 7 stands for, each with its hint.
var keyHints = []struct {
	err  error
	hint string
}{
	{keys.ErrNoKey, "create one with: appraise keys init --tenant NAME"},
	{keys.ErrKeyExists, "rotate it with 'appraise keys rotate', or pass another --key-dir"},
	{keys.ErrNoPassphrase, "set APPRAISE_PASSPHRASE or pass --passphrase-file FILE"},
	{keys.ErrEmptyPassphrase, "set APPRAISE_PASSPHRASE or pass --passphrase-file FILE"},
	{keys.ErrPassphraseMismatch, "type the same passphrase twice"},
	{keys.ErrWrongPassphrase, "check APPRAISE_PASSPHRASE or --passphrase-file"},
	{keys.ErrPassphraseProtected, "drop --identity, and set APPRAISE_PASSPHRASE or pass --passphrase-file FILE"},
	{keys.ErrRecipientsProtected, "pass --identity FILE with an age identity of one of the key's recipients"},
	{keys.ErrWrongIdentity, "the identity file does not unlock this key"},
	{keys.ErrInsecurePermissions, "the key directory and its files must be yours and writable by you alone"},
	{keys.ErrCorruptKey, "restore the key directory from a backup"},
	{keys.ErrBusy, "wait for the other appraise process to finish"},
	{keys.ErrRotated, "the key was rotated while this run signed: appraise again with the new key"},
}

// keyError gives key failures exit 7 and a hint; other failures exit 1.
func keyError(err error) error {
	for _, k := range keyHints {
		if errors.Is(err, k.err) {
			return withCode(exitKey, err, k.hint)
		}
	}
	var nm *age.NoIdentityMatchError
	if errors.As(err, &nm) {
		return withCode(exitKey, err, "the identity file does not unlock this key")
	}
	return withCode(exitError, err, "")
}

package main

import (
	"errors"
	"fmt"
	"os"
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

// decryption unlocks the current key with the --identity file when given,
// else with a passphrase.
func decryption(e *env, g *globals, prompt string) (keys.Decryption, error) {
	if g.Identity == "" {
		pass, err := passphraseSource(e, g).Passphrase(prompt, false)
		if err != nil {
			return keys.Decryption{}, keyError(err)
		}
		return keys.Decryption{Passphrase: pass}, nil
	}
	file, err := os.Open(g.Identity)
	if err != nil {
		return keys.Decryption{}, err
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
	dir, err := keyDir(e, g)
	if err != nil {
		return err
	}
	dec, err := decryption(e, g, "Passphrase of the current key: ")
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
	fmt.Fprintf(e.stdout, "rotated key %s -> %s at %s\nthe old key is archived; cards it signed still verify with the rotation statement in %s/rotations\n",
		keys.Fingerprint(st.OldKey), keys.Fingerprint(st.NewKey), st.RotatedAt.Format(time.RFC3339), dir)
	return nil
}

// keyDir resolves the key directory from --key-dir, APPRAISE_KEY_DIR and
// the XDG default.
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

// passphraseSource reads APPRAISE_PASSPHRASE, then --passphrase-file, then
// the terminal when there is one.
func passphraseSource(e *env, g *globals) keys.PassphraseSource {
	src := keys.PassphraseSource{Getenv: e.getenv, File: g.PassphraseFile}
	if e.isTTY {
		if t, err := keys.OpenTerminal(); err == nil {
			src.TTY = t
		}
	}
	return src
}

// unlockSigner loads and unlocks the current key for signing reports.
func unlockSigner(e *env, g *globals) (*keys.Signer, error) {
	dir, err := keyDir(e, g)
	if err != nil {
		return nil, err
	}
	dec, err := decryption(e, g, "Passphrase of the signing key: ")
	if err != nil {
		return nil, err
	}
	s, err := keys.LoadSigner(dir, dec)
	if err != nil {
		return nil, keyError(err)
	}
	return s, nil
}

// keyError gives key failures their exit code and a hint.
func keyError(err error) error {
	hint := ""
	switch {
	case errors.Is(err, keys.ErrNoKey):
		hint = "create one with: appraise keys init --tenant NAME"
	case errors.Is(err, keys.ErrNoPassphrase):
		hint = "set APPRAISE_PASSPHRASE or pass --passphrase-file FILE"
	case errors.Is(err, keys.ErrWrongPassphrase):
		hint = "check APPRAISE_PASSPHRASE or --passphrase-file"
	case errors.Is(err, keys.ErrInsecurePermissions):
		hint = "the private key must be readable by you alone"
	}
	var nm *age.NoIdentityMatchError
	if errors.As(err, &nm) {
		hint = "the identity file does not unlock this key"
	}
	return withCode(exitKey, err, hint)
}

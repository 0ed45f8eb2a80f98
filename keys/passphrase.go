package keys

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"golang.org/x/term"
)

// Environment variables read through the getenv functions passed in.
const (
	// EnvKeyDir overrides the default key directory.
	EnvKeyDir = "APPRAISE_KEY_DIR"
	// EnvPassphrase holds the passphrase for non-interactive use.
	EnvPassphrase = "APPRAISE_PASSPHRASE"
)

// ResolveDir returns the key directory: flagValue (from --key-dir) if set,
// else $APPRAISE_KEY_DIR, else $XDG_CONFIG_HOME/appraise (when that is an
// absolute path, as the XDG spec requires), else $HOME/.config/appraise.
// getenv is os.Getenv outside tests.
func ResolveDir(flagValue string, getenv func(string) string) (string, error) {
	if flagValue != "" {
		return filepath.Clean(flagValue), nil
	}
	if d := getenv(EnvKeyDir); d != "" {
		return filepath.Clean(d), nil
	}
	if d := getenv("XDG_CONFIG_HOME"); filepath.IsAbs(d) {
		return filepath.Join(d, "appraise"), nil
	}
	if h := getenv("HOME"); h != "" {
		return filepath.Join(h, ".config", "appraise"), nil
	}
	return "", fmt.Errorf("keys: no key directory: pass --key-dir or set %s or HOME", EnvKeyDir)
}

// TTY reads a secret from the user without echoing it. Terminal implements
// it; tests supply their own.
type TTY interface {
	// ReadSecret shows prompt and returns the line typed, without its newline.
	ReadSecret(prompt string) ([]byte, error)
}

// Terminal is the controlling terminal, /dev/tty.
type Terminal struct {
	f *os.File
}

// OpenTerminal opens the controlling terminal. With none, the error wraps
// ErrNoTTY; the caller then leaves PassphraseSource.TTY nil (a nil
// interface, not a nil *Terminal).
func OpenTerminal() (*Terminal, error) {
	f, err := os.OpenFile("/dev/tty", os.O_RDWR, 0)
	if err != nil {
		return nil, fmt.Errorf("keys: open /dev/tty: %w: %w", ErrNoTTY, err)
	}
	if !term.IsTerminal(int(f.Fd())) {
		f.Close()
		return nil, fmt.Errorf("keys: /dev/tty: %w", ErrNoTTY)
	}
	return &Terminal{f: f}, nil
}

// ReadSecret writes prompt to the terminal and reads a line with echo off.
func (t *Terminal) ReadSecret(prompt string) ([]byte, error) {
	if t == nil || t.f == nil {
		return nil, fmt.Errorf("keys: %w", ErrNoTTY)
	}
	if _, err := fmt.Fprint(t.f, prompt); err != nil {
		return nil, fmt.Errorf("keys: write prompt: %w", err)
	}
	b, err := term.ReadPassword(int(t.f.Fd()))
	fmt.Fprintln(t.f) // the user's Enter was not echoed
	if err != nil {
		return nil, fmt.Errorf("keys: read passphrase: %w", err)
	}
	return b, nil
}

// Close closes the terminal.
func (t *Terminal) Close() error {
	return t.f.Close()
}

// PassphraseSource says where a passphrase comes from, in order: the
// environment variable APPRAISE_PASSPHRASE, the first line of File, a prompt
// on TTY.
type PassphraseSource struct {
	// Getenv is os.Getenv outside tests.
	Getenv func(string) string
	// File is the --passphrase-file path, or empty.
	File string
	// TTY prompts the user; nil when there is no terminal.
	TTY TTY
}

// Passphrase returns the first passphrase the source yields. At a prompt
// it shows prompt (such as "Passphrase for the new key: "), and with confirm
// (for a new key) it asks again and requires the same answer. It refuses an empty passphrase with
// ErrEmptyPassphrase, and returns ErrNoPassphrase when there is no
// environment variable, no file and no TTY.
func (s PassphraseSource) Passphrase(prompt string, confirm bool) (string, error) {
	if s.Getenv != nil {
		if p := s.Getenv(EnvPassphrase); p != "" {
			return p, nil
		}
	}
	if s.File != "" {
		return readPassphraseFile(s.File)
	}
	if s.TTY == nil {
		return "", fmt.Errorf("keys: %w", ErrNoPassphrase)
	}
	return promptPassphrase(s.TTY, prompt, confirm)
}

// readPassphraseFile returns the first line of path, without its line ending.
func readPassphraseFile(path string) (string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return "", fmt.Errorf("keys: passphrase file: %w", err)
	}
	line, _, _ := bytes.Cut(b, []byte("\n"))
	line = bytes.TrimSuffix(line, []byte("\r"))
	if len(line) == 0 {
		return "", fmt.Errorf("keys: passphrase file %s: %w", path, ErrEmptyPassphrase)
	}
	return string(line), nil
}

// promptPassphrase asks on tty, twice when confirm is set.
func promptPassphrase(tty TTY, prompt string, confirm bool) (string, error) {
	p, err := tty.ReadSecret(prompt)
	if errors.Is(err, ErrNoTTY) {
		return "", fmt.Errorf("keys: %w", ErrNoPassphrase)
	}
	if err != nil {
		return "", err
	}
	if len(p) == 0 {
		return "", fmt.Errorf("keys: %w", ErrEmptyPassphrase)
	}
	if !confirm {
		return string(p), nil
	}
	again, err := tty.ReadSecret("Confirm passphrase: ")
	if err != nil {
		return "", err
	}
	if !bytes.Equal(p, again) {
		return "", fmt.Errorf("keys: %w", ErrPassphraseMismatch)
	}
	return string(p), nil
}

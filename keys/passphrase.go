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
	EnvKeyDir     = "APPRAISE_KEY_DIR"    // overrides the default key directory
	EnvPassphrase = "APPRAISE_PASSPHRASE" // the passphrase, for non-interactive use
)

// ResolveDir returns flagValue if set, else $APPRAISE_KEY_DIR, else an
// absolute $XDG_CONFIG_HOME/appraise, else $HOME/.config/appraise.
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

// TTY reads a secret from the user without echoing it, as Terminal does.
type TTY interface {
	ReadSecret(prompt string) ([]byte, error) // the line typed, without its newline
}

// Terminal is the controlling terminal, /dev/tty.
type Terminal struct {
	f *os.File
}

// OpenTerminal opens the controlling terminal; with none, the error wraps
// ErrNoTTY and PassphraseSource.TTY should stay a nil interface.
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

// PassphraseSource says where a passphrase comes from, in order:
// EnvPassphrase, the first line of File, a prompt on TTY.
type PassphraseSource struct {
	Getenv func(string) string // os.Getenv outside tests
	File   string              // the --passphrase-file path, or empty
	TTY    TTY                 // nil when there is no terminal
}

// Passphrase returns the source's first passphrase, prompting twice when
// confirm is set; errors are ErrEmptyPassphrase and ErrNoPassphrase.
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

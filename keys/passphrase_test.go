package keys

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// env returns a getenv over m.
func env(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

// fakeTTY answers prompts from a script.
type fakeTTY struct {
	answers []string
	prompts []string
}

// ReadSecret returns the next scripted answer.
func (f *fakeTTY) ReadSecret(prompt string) ([]byte, error) {
	f.prompts = append(f.prompts, prompt)
	if len(f.answers) == 0 {
		return nil, errors.New("fakeTTY: out of answers")
	}
	a := f.answers[0]
	f.answers = f.answers[1:]
	return []byte(a), nil
}

func TestResolveDir(t *testing.T) {
	for _, c := range []struct {
		flag string
		env  map[string]string
		want string
	}{
		{"/flag", map[string]string{EnvKeyDir: "/env", "HOME": "/home/u"}, "/flag"},
		{"", map[string]string{EnvKeyDir: "/env/", "XDG_CONFIG_HOME": "/xdg"}, "/env"},
		{"", map[string]string{"XDG_CONFIG_HOME": "/xdg", "HOME": "/home/u"}, "/xdg/appraise"},
		{"", map[string]string{"XDG_CONFIG_HOME": "relative", "HOME": "/home/u"}, "/home/u/.config/appraise"},
		{"", map[string]string{"HOME": "/home/u"}, "/home/u/.config/appraise"},
	} {
		got, err := ResolveDir(c.flag, env(c.env))
		if err != nil || got != c.want {
			t.Errorf("ResolveDir(%q, %v) = %q, %v; want %q", c.flag, c.env, got, err, c.want)
		}
	}
	if _, err := ResolveDir("", env(nil)); err == nil {
		t.Error("ResolveDir with nothing set: no error")
	}
}

func TestPassphraseSource(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "pass")
	if err := os.WriteFile(file, []byte("from-file\r\nsecond line\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	empty := filepath.Join(dir, "empty")
	if err := os.WriteFile(empty, []byte("\nnot first\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	withEnv := env(map[string]string{EnvPassphrase: "from-env"})
	for _, c := range []struct {
		name    string
		src     PassphraseSource
		confirm bool
		want    string
		wantErr error
	}{
		{"env first", PassphraseSource{Getenv: withEnv, File: file, TTY: &fakeTTY{}}, false, "from-env", nil},
		{"file", PassphraseSource{Getenv: env(nil), File: file, TTY: &fakeTTY{}}, false, "from-file", nil},
		{"empty file", PassphraseSource{Getenv: env(nil), File: empty}, false, "", ErrEmptyPassphrase},
		{"tty", PassphraseSource{Getenv: env(nil), TTY: &fakeTTY{answers: []string{"typed"}}}, false, "typed", nil},
		{"tty confirm", PassphraseSource{TTY: &fakeTTY{answers: []string{"typed", "typed"}}}, true, "typed", nil},
		{"tty mismatch", PassphraseSource{TTY: &fakeTTY{answers: []string{"typed", "typo"}}}, true, "", ErrPassphraseMismatch},
		{"tty empty", PassphraseSource{TTY: &fakeTTY{answers: []string{""}}}, false, "", ErrEmptyPassphrase},
		{"no tty", PassphraseSource{Getenv: env(nil)}, false, "", ErrNoPassphrase},
		{"nil terminal", PassphraseSource{TTY: (*Terminal)(nil)}, false, "", ErrNoPassphrase},
	} {
		got, err := c.src.Passphrase("Passphrase: ", c.confirm)
		if got != c.want || !errors.Is(err, c.wantErr) {
			t.Errorf("%s: got %q, %v; want %q, %v", c.name, got, err, c.want, c.wantErr)
		}
	}
	_, err := PassphraseSource{}.Passphrase("Passphrase: ", false)
	for _, hint := range []string{EnvPassphrase, "--passphrase-file"} {
		if err == nil || !strings.Contains(err.Error(), hint) {
			t.Errorf("ErrNoPassphrase message %q lacks %q", err, hint)
		}
	}
}

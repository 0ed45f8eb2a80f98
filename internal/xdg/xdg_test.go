package xdg

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

func TestUsable(t *testing.T) {
	own := t.TempDir()
	if err := os.Chmod(own, 0o700); err != nil {
		t.Fatal(err)
	}
	open := filepath.Join(t.TempDir(), "open")
	if err := os.Mkdir(open, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(open, 0o777); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		dir  string
		want bool
	}{
		{"private", own, true},
		{"unset", "", false},
		{"relative", "run", false},
		{"missing", filepath.Join(own, "missing"), false},
		{"file", file, false},
		{"world-writable", open, false},
	} {
		if got := Usable(c.dir); got != c.want {
			t.Errorf("%s: Usable(%q) = %v, want %v", c.name, c.dir, got, c.want)
		}
	}
}

// TestUsableOtherOwner: a 0700 directory of another user is not ours.
func TestUsableOtherOwner(t *testing.T) {
	dir := t.TempDir()
	if err := os.Chmod(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if os.Geteuid() == 0 {
		if err := os.Chown(dir, 65534, 65534); err != nil {
			t.Skip("cannot give a directory away:", err)
		}
	} else {
		dir = "/root" // another user's, where it exists
		fi, err := os.Stat(dir)
		if err != nil || fi.Sys().(*syscall.Stat_t).Uid == uint32(os.Geteuid()) {
			t.Skip("no directory of another user")
		}
	}
	if Usable(dir) {
		t.Errorf("Usable(%q) with another owner = true", dir)
	}
}

func TestRuntimeDirKeepsUsable(t *testing.T) {
	own := t.TempDir()
	if err := os.Chmod(own, 0o700); err != nil {
		t.Fatal(err)
	}
	dir, remove, err := RuntimeDir(own)
	if err != nil || dir != own || remove != nil {
		t.Fatalf("RuntimeDir(%q) = %q, remove %v, %v; want it kept", own, dir, remove != nil, err)
	}
}

func TestRuntimeDirMakesPrivate(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	for _, current := range []string{"", "/tmp", filepath.Join(tmp, "missing")} {
		dir, remove, err := RuntimeDir(current)
		if err != nil {
			t.Fatalf("RuntimeDir(%q): %v", current, err)
		}
		if filepath.Dir(dir) != tmp || !strings.HasPrefix(filepath.Base(dir), prefix) {
			t.Errorf("RuntimeDir(%q) = %q, want a fresh directory in $TMPDIR", current, dir)
		}
		if fi, err := os.Stat(dir); err != nil || fi.Mode().Perm() != 0o700 || !Usable(dir) {
			t.Errorf("RuntimeDir(%q) = %q: not a usable 0700 directory (%v)", current, dir, err)
		}
		if err := os.WriteFile(filepath.Join(dir, "left"), nil, 0o600); err != nil {
			t.Fatal(err)
		}
		if err := remove(); err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(dir); !os.IsNotExist(err) {
			t.Errorf("after remove, %q: %v", dir, err)
		}
	}
}

// TestRuntimeDirUnwritableTMPDIR: with $TMPDIR unusable the directory is
// made under /tmp.
func TestRuntimeDirUnwritableTMPDIR(t *testing.T) {
	t.Setenv("TMPDIR", filepath.Join(t.TempDir(), "missing"))
	dir, remove, err := RuntimeDir("")
	if err != nil {
		t.Fatal(err)
	}
	defer remove()
	if filepath.Dir(dir) != "/tmp" || !Usable(dir) {
		t.Errorf("RuntimeDir with a missing TMPDIR = %q, want a usable directory in /tmp", dir)
	}
}

package pci

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"syscall"
	"testing"
)

// romImage returns an n-byte expansion ROM image: the 0x55 0xAA signature,
// the length in 512-byte units, then a pattern.
func romImage(n int) []byte {
	img := make([]byte, n)
	for i := range img {
		img[i] = byte(i * 7)
	}
	img[0], img[1], img[2] = 0x55, 0xaa, byte(n/512)
	return img
}

// kernelROM stands in for the kernel's rom attribute over a fake tree's
// rom file: it records every write and, like pci_read_rom, refuses reads
// (EINVAL) until "1" has been written and after "0\n" has.
type kernelROM struct {
	path     string
	writes   []string
	enabled  bool
	readErr  error // returned by readAll when set
	writeErr map[string]error
}

func (k *kernelROM) write(b []byte) error {
	k.writes = append(k.writes, string(b))
	if err := k.writeErr[string(b)]; err != nil {
		return err
	}
	k.enabled = string(b) != "0\n"
	return nil
}

func (k *kernelROM) readAll(max int64) ([]byte, error) {
	if !k.enabled {
		return nil, syscall.EINVAL
	}
	if k.readErr != nil {
		return nil, k.readErr
	}
	return sysfsROM(k.path).readAll(max)
}

// romTree builds a tree with the rx7900 and writes img as its rom file.
func romTree(t *testing.T, img []byte) *kernelROM {
	t.Helper()
	root := buildTree(t, rx7900("0000:03:00.0"))
	path := filepath.Join(devPath(root, rx7900BDF), "rom")
	if err := os.WriteFile(path, img, 0o600); err != nil {
		t.Fatal(err)
	}
	return &kernelROM{path: path}
}

// enableThenDisable is the write sequence every read must be wrapped in.
var enableThenDisable = []string{"1\n", "0\n"}

func TestHashROM(t *testing.T) {
	img := romImage(128 << 10)
	k := romTree(t, img)
	got, err := hashROM(k)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(img)
	if want := hex.EncodeToString(sum[:]); got != want {
		t.Errorf("hash = %s, want %s", got, want)
	}
	if !slices.Equal(k.writes, enableThenDisable) || k.enabled {
		t.Errorf("writes = %q (enabled %v), want %q", k.writes, k.enabled, enableThenDisable)
	}
}

func TestHashROMRefused(t *testing.T) {
	bad := romImage(4096)
	bad[1] = 0x00
	tests := []struct {
		name    string
		img     []byte
		readErr error
		want    error
	}{
		{"bad signature", bad, nil, ErrROMSignature},
		{"empty image", nil, nil, ErrROMSignature},
		{"one byte", []byte{0x55}, nil, ErrROMSignature},
		{"read fails", romImage(4096), syscall.EIO, syscall.EIO},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			k := romTree(t, tt.img)
			k.readErr = tt.readErr
			h, err := hashROM(k)
			if !errors.Is(err, tt.want) || h != "" {
				t.Errorf("hashROM = %q, %v; want error %v", h, err, tt.want)
			}
			if !slices.Equal(k.writes, enableThenDisable) || k.enabled {
				t.Errorf("writes = %q (enabled %v), want %q", k.writes, k.enabled, enableThenDisable)
			}
		})
	}
}

func TestHashROMWriteFails(t *testing.T) {
	k := romTree(t, romImage(4096))
	k.writeErr = map[string]error{"1\n": fs.ErrPermission}
	if _, err := hashROM(k); !errors.Is(err, fs.ErrPermission) {
		t.Errorf("enable refused: error = %v, want fs.ErrPermission", err)
	}
	if !slices.Equal(k.writes, []string{"1\n"}) {
		t.Errorf("enable refused: writes = %q, want only the enable", k.writes)
	}

	k = romTree(t, romImage(4096))
	k.writeErr = map[string]error{"0\n": syscall.EIO}
	if h, err := hashROM(k); !errors.Is(err, syscall.EIO) || h != "" {
		t.Errorf("disable fails: hashROM = %q, %v; want error EIO", h, err)
	}
}

func TestHashROMTooLarge(t *testing.T) {
	k := romTree(t, romImage(maxROMBytes+512))
	if _, err := hashROM(k); err == nil {
		t.Error("oversized image accepted")
	}
	if !slices.Equal(k.writes, enableThenDisable) {
		t.Errorf("writes = %q, want %q", k.writes, enableThenDisable)
	}
}

// TestSysfsROMWrite checks the real writer writes at offset 0 without
// truncating or appending, as the kernel's attribute expects.
func TestSysfsROMWrite(t *testing.T) {
	path := filepath.Join(t.TempDir(), "rom")
	write(t, path, "abcdef")
	if err := sysfsROM(path).write([]byte("0\n")); err != nil {
		t.Fatal(err)
	}
	b, err := sysfsROM(path).readAll(4)
	if err != nil {
		t.Fatal(err)
	}
	if string(b) != "0\ncde" {
		t.Errorf("after write, first 5 bytes = %q, want %q", b, "0\ncde")
	}
}

func TestROMHashNoROM(t *testing.T) {
	root := buildTree(t, h200Devices()...)
	if _, err := ROMHash(root, BDF{Device: 6}); !errors.Is(err, ErrNoROM) {
		t.Errorf("ROMHash(H200) error = %v, want ErrNoROM", err)
	}
	if _, err := ROMHash(root, BDF{Device: 9}); !errors.Is(err, fs.ErrNotExist) || errors.Is(err, ErrNoROM) {
		t.Errorf("ROMHash(absent device) error = %v, want fs.ErrNotExist", err)
	}
}

func TestVersionHash(t *testing.T) {
	sum := sha256.Sum256([]byte("113-D7020100-102"))
	if got, want := VersionHash("113-D7020100-102"), hex.EncodeToString(sum[:]); got != want {
		t.Errorf("VersionHash = %s, want %s", got, want)
	}
	if got := VersionHash(""); got != "" {
		t.Errorf("VersionHash(\"\") = %q, want \"\"", got)
	}
}

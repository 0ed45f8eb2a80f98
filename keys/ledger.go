package keys

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
)

// digestLine is the length of one ledger line: hex digits and "\n".
const digestLine = 2*sha256.Size + 1

// RecordSigned appends to dir's ledger the SHA-256 of each message s signed
// since last recorded, for Rotate to list; callers record before publishing.
// It returns ErrRotated when s is no longer dir's current key.
func RecordSigned(dir string, s *Signer) error {
	s.mu.Lock()
	pending := slices.Clone(s.signed[s.recorded:])
	s.mu.Unlock()
	if len(pending) == 0 {
		return nil
	}
	if err := checkDirs(dir); err != nil {
		return err
	}
	unlock, err := lockDirWait(dir)
	if err != nil {
		return err
	}
	defer unlock()
	cur, err := readCurrent(dir)
	if err != nil {
		return err
	}
	if !cur.info.PublicKey.Equal(s.PublicKey()) {
		return fmt.Errorf("keys: %s: key %s: %w", dir, s.PublicKey().Fingerprint(), ErrRotated)
	}
	if err := appendDigests(dir, s.PublicKey().Fingerprint(), pending); err != nil {
		return err
	}
	s.mu.Lock()
	s.recorded += len(pending)
	s.mu.Unlock()
	return nil
}

// CheckLedger reports whether RecordSigned could record what s signs in
// dir, creating the ledger if need be and writing nothing.
func CheckLedger(dir string, s *Signer) error {
	return appendDigests(dir, s.PublicKey().Fingerprint(), nil)
}

// appendDigests appends one line per digest to fp's ledger in one synced write.
func appendDigests(dir, fp string, digests [][sha256.Size]byte) error {
	sdir := filepath.Join(dir, signedDirName)
	if err := os.MkdirAll(sdir, 0o700); err != nil {
		return fmt.Errorf("keys: create ledger directory: %w", err)
	}
	if err := checkDirs(dir); err != nil {
		return err
	}
	path := filepath.Join(sdir, fp)
	f, err := os.OpenFile(path, os.O_RDWR|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return fmt.Errorf("keys: ledger: %w", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return fmt.Errorf("keys: ledger: %w", err)
	}
	if !fi.Mode().IsRegular() {
		return fmt.Errorf("keys: %s: %w: not a regular file", path, ErrCorruptKey)
	}
	if err := checkPermissions(path, fi); err != nil {
		return err
	}
	if len(digests) == 0 {
		return nil
	}
	var buf bytes.Buffer
	if torn, err := endsTorn(f, fi.Size()); err != nil {
		return err
	} else if torn {
		buf.WriteByte('\n')
	}
	for _, d := range digests {
		buf.WriteString(hex.EncodeToString(d[:]))
		buf.WriteByte('\n')
	}
	if _, err := f.Write(buf.Bytes()); err != nil {
		return fmt.Errorf("keys: ledger: %w", err)
	}
	if err := f.Sync(); err != nil {
		return fmt.Errorf("keys: ledger: %w", err)
	}
	return syncDir(sdir)
}

func endsTorn(f *os.File, size int64) (bool, error) {
	if size == 0 {
		return false, nil
	}
	var last [1]byte
	if _, err := f.ReadAt(last[:], size-1); err != nil && !errors.Is(err, io.EOF) {
		return false, fmt.Errorf("keys: ledger: %w", err)
	}
	return last[0] != '\n', nil
}

// readLedger returns fp's digests, sorted without repeats, skipping torn lines.
func readLedger(dir, fp string) ([][sha256.Size]byte, error) {
	b, err := readSecure(filepath.Join(dir, signedDirName, fp))
	if errors.Is(err, fs.ErrNotExist) {
		return [][sha256.Size]byte{}, nil
	}
	if err != nil {
		return nil, err
	}
	out := make([][sha256.Size]byte, 0, len(b)/digestLine)
	for line := range bytes.Lines(b) {
		var d [sha256.Size]byte
		if len(line) != digestLine || line[len(line)-1] != '\n' || !isLowerHex(line[:len(line)-1]) {
			continue
		}
		hex.Decode(d[:], line[:len(line)-1])
		out = append(out, d)
	}
	slices.SortFunc(out, func(a, b [sha256.Size]byte) int { return bytes.Compare(a[:], b[:]) })
	return slices.Compact(out), nil
}

func isLowerHex(b []byte) bool {
	for _, c := range b {
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

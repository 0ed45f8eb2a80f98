package pci

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
)

// Values of schema.DeviceIdentity.VBIOSHashSource. Hashes of different
// sources are never compared.
const (
	ROMHashSource     = "rom"            // a hash of the expansion ROM image (ROMHash)
	VersionHashSource = "vendor-version" // a hash of the driver's version string (VersionHash)
)

const maxROMBytes = 16 << 20 // a larger image is not a VBIOS

// ErrNoROM says sysfs exposes no expansion ROM ("rom" file) for the device.
var ErrNoROM = errors.New("no expansion ROM exposed in sysfs")

// ErrROMSignature says the image does not start with the signature 0x55 0xAA.
var ErrROMSignature = errors.New("ROM image lacks the 0x55 0xAA signature")

// ROMHash returns the lower-case hex SHA-256 of the device's expansion ROM
// image, read through <dev>/rom below root, which needs root. It enables reads
// by writing "1\n" and always disables them again with "0\n", so a ROM someone
// else enabled is left disabled. On any error, ErrNoROM included, callers fall
// back to VersionHash.
func ROMHash(root string, bdf BDF) (string, error) {
	dir, err := deviceDir(root, bdf)
	if err != nil {
		return "", fmt.Errorf("pci: ROM hash: %w", err)
	}
	path := filepath.Join(dir, "rom")
	if _, err := os.Lstat(path); errors.Is(err, fs.ErrNotExist) {
		return "", fmt.Errorf("pci: ROM hash: %s: %w", bdf, ErrNoROM)
	} else if err != nil {
		return "", fmt.Errorf("pci: ROM hash: %w", err)
	}
	h, err := hashROM(sysfsROM(path))
	if err != nil {
		return "", fmt.Errorf("pci: ROM hash: %s: %w", bdf, err)
	}
	return h, nil
}

// VersionHash returns the lower-case hex SHA-256 of a VBIOS version string, ""
// for an empty one. It tells builds apart, not two images of one version.
func VersionHash(version string) string {
	if version == "" {
		return ""
	}
	sum := sha256.Sum256([]byte(version))
	return hex.EncodeToString(sum[:])
}

// romFile is a device's sysfs rom attribute; tests substitute a recorder.
type romFile interface {
	write(b []byte) error              // at offset 0, through a fresh descriptor
	readAll(max int64) ([]byte, error) // from offset 0, at most max+1 bytes
}

// hashROM enables reads of f, hashes the image and disables reads again.
func hashROM(f romFile) (hash string, err error) {
	if err := f.write([]byte("1\n")); err != nil {
		return "", fmt.Errorf("enabling ROM reads: %w", err)
	}
	defer func() {
		if werr := f.write([]byte("0\n")); werr != nil {
			hash, err = "", errors.Join(err, fmt.Errorf("disabling ROM reads: %w", werr))
		}
	}()
	img, err := f.readAll(maxROMBytes)
	switch {
	case err != nil:
		return "", fmt.Errorf("reading ROM: %w", err)
	case len(img) > maxROMBytes:
		return "", fmt.Errorf("ROM image larger than %s", formatBytes(maxROMBytes))
	case !bytes.HasPrefix(img, []byte{0x55, 0xaa}):
		return "", fmt.Errorf("%d-byte image: %w", len(img), ErrROMSignature)
	}
	sum := sha256.Sum256(img)
	return hex.EncodeToString(sum[:]), nil
}

type sysfsROM string

func (p sysfsROM) write(b []byte) error {
	f, err := os.OpenFile(string(p), os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	_, err = f.Write(b)
	return errors.Join(err, f.Close())
}

func (p sysfsROM) readAll(max int64) ([]byte, error) {
	f, err := os.Open(string(p))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, max+1))
}

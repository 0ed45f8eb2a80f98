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

// Values of schema.DeviceIdentity.VBIOSHashSource for the two kinds of
// VBIOS hash. They are never compared with each other.
const (
	// ROMHashSource: the hash is of the expansion ROM image (ROMHash).
	ROMHashSource = "rom"
	// VersionHashSource: the hash is of the version string the driver
	// reports (VersionHash), the fallback where no ROM can be read.
	VersionHashSource = "vendor-version"
)

// maxROMBytes bounds the ROM image read. GPU ROM BARs map 128 KiB to a
// few MiB; an image past 16 MiB is not a VBIOS.
const maxROMBytes = 16 << 20

// ErrNoROM says sysfs exposes no expansion ROM for the device (no "rom"
// file), as on the H200 host. The caller then hashes the vendor-reported
// VBIOS version instead.
var ErrNoROM = errors.New("no expansion ROM exposed in sysfs")

// ErrROMSignature says the ROM image does not start with the PCI expansion
// ROM signature 0x55 0xAA, so it is not a ROM image (or not all of one).
var ErrROMSignature = errors.New("ROM image lacks the 0x55 0xAA signature")

// ROMHash returns the lower-case hex SHA-256 of the device's expansion ROM
// image (source ROMHashSource), read through <dev>/rom below root.
//
// The kernel hands out the image only after "1" is written to the file and
// stops after "0"; ROMHash writes "1\n", reads the whole image, and writes
// "0\n" again whenever the "1" was accepted, also when the read or the
// signature check fails. (Kernels before 6.x disable only on a two-byte
// write whose first byte is '0' at offset 0, which is why the newline is
// part of the write, exactly as `echo 0 > rom` writes it.) Note that the
// kernel keeps no record of who enabled reads: a ROM someone else had
// enabled is left disabled.
//
// The rom file is writable by root only, so without root the enabling
// write fails with a permission error. Each read maps the ROM BAR for the
// length of the copy (on some cards the kernel copies a shadow instead);
// nothing else of the device changes. ErrNoROM means there is no rom file;
// with it or any other error the caller falls back to a hash of the
// vendor-reported VBIOS version (VersionHash). An image that does not start
// with 0x55 0xAA is refused with ErrROMSignature.
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

// VersionHash returns the lower-case hex SHA-256 of a VBIOS version string
// byte for byte (source VersionHashSource), or "" for an empty version. It
// tells VBIOS builds apart, though not two images carrying one version.
func VersionHash(version string) string {
	if version == "" {
		return ""
	}
	sum := sha256.Sum256([]byte(version))
	return hex.EncodeToString(sum[:])
}

// romFile is a device's sysfs rom attribute. Tests substitute one that
// records the writes.
type romFile interface {
	// write writes b at offset 0 through a fresh descriptor.
	write(b []byte) error
	// readAll reads the file from offset 0 to its end, at most max bytes
	// plus one.
	readAll(max int64) ([]byte, error)
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

// sysfsROM is the path of a real rom attribute.
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

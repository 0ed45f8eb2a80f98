package keys

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"time"
)

// rotateStep is a point in Rotate after which tests simulate a crash.
type rotateStep int

const (
	stepPrepared      rotateStep = iota // old key unlocked, new key sealed, nothing written
	stepArchiveTemp                     // archive copy in a temporary file
	stepArchived                        // archive copy in place and synced
	stepKeyTemp                         // new key.json in a temporary file
	stepSwapped                         // new key.json renamed into place and synced
	stepStatementTemp                   // statement copy in a temporary file
	stepPublished                       // statement copy in place: done
	numRotateSteps
)

// crashFunc is called after each step; an error stops Rotate there, as a crash would.
type crashFunc func(rotateStep) error

// Rotate replaces the current key in dir, unlocked with dec, by a new key
// encrypted as enc says, at now, and returns the statement linking them.
// After a crash, run it again with the key LoadPublic says is current.
func Rotate(dir string, dec Decryption, enc Encryption, now time.Time) (*RotationStatement, error) {
	return rotate(dir, dec, enc, now, func(rotateStep) error { return nil })
}

func rotate(dir string, dec Decryption, enc Encryption, now time.Time, crash crashFunc) (*RotationStatement, error) {
	if err := checkDirs(dir); err != nil {
		return nil, err
	}
	unlock, err := lockDir(dir)
	if err != nil {
		return nil, err
	}
	defer unlock()
	cur, next, err := prepareRotation(dir, dec, enc, now)
	if err != nil {
		return nil, err
	}
	if err := crash(stepPrepared); err != nil {
		return nil, err
	}
	if err := writeStep(filepath.Join(dir, archiveDirName), cur.archiveName(), cur.raw, false, crash, stepArchiveTemp); err != nil {
		return nil, err
	}
	if err := writeStep(dir, keyFileName, next.raw, true, crash, stepKeyTemp); err != nil {
		return nil, err
	}
	if err := publish(dir, next.rotation, crash); err != nil {
		return nil, err
	}
	return next.rotation, nil
}

// prepareRotation unlocks the current key and makes its successor.
func prepareRotation(dir string, dec Decryption, enc Encryption, now time.Time) (cur, next *storedKey, err error) {
	if err := removeTemps(dir); err != nil {
		return nil, nil, err
	}
	if cur, err = readCurrent(dir); err != nil {
		return nil, nil, err
	}
	if err := publish(dir, cur.rotation, nil); err != nil { // a crash may have skipped it
		return nil, nil, err
	}
	now = now.UTC().Truncate(time.Second)
	if now.Before(cur.info.CreatedAt) {
		return nil, nil, fmt.Errorf("keys: rotate: time %s is before the current key's creation %s",
			formatTime(now), formatTime(cur.info.CreatedAt))
	}
	if _, err := enc.protection(); err != nil {
		return nil, nil, err
	}
	old, err := cur.unlock(dec)
	if err != nil {
		return nil, nil, err
	}
	s, err := GenerateSigner(old.Tenant())
	if err != nil {
		return nil, nil, err
	}
	signed, err := readLedger(dir, cur.info.Fingerprint())
	if err != nil {
		return nil, nil, err
	}
	st, err := signRotation(old, s, now, signed)
	if err != nil {
		return nil, nil, err
	}
	raw, err := sealKey(s, now, enc, st)
	if err != nil {
		return nil, nil, err
	}
	return cur, &storedKey{info: KeyInfo{Tenant: s.Tenant(), PublicKey: s.PublicKey(), CreatedAt: now}, rotation: st, raw: raw}, nil
}

// writeStep writes dir/name, calling crash after step and step+1.
func writeStep(dir, name string, data []byte, replace bool, crash crashFunc, step rotateStep) error {
	tmp, err := writeTemp(dir, name, data)
	if err != nil {
		return err
	}
	if err := crash(step); err != nil {
		return err
	}
	if err := commit(tmp, dir, name, replace); err != nil {
		return err
	}
	return crash(step + 1)
}

// publish copies st, if not nil, into rotations/ unless it is there.
func publish(dir string, st *RotationStatement, crash crashFunc) error {
	if st == nil {
		return nil
	}
	if crash == nil {
		crash = func(rotateStep) error { return nil }
	}
	b, err := json.MarshalIndent(st, "", "  ")
	if err != nil {
		return fmt.Errorf("keys: encode rotation statement: %w", err)
	}
	name := st.RotatedAt.Format(fileTimeLayout) + "-" + Fingerprint(st.OldKey) + "-" + Fingerprint(st.NewKey) + ".json"
	return writeStep(filepath.Join(dir, rotationsDirName), name, append(b, '\n'), false, crash, stepStatementTemp)
}

// DirInfo is everything in a key directory that is not secret.
type DirInfo struct {
	Dir       string
	Current   *KeyInfo
	Archived  []*KeyInfo           // oldest first
	Rotations []*RotationStatement // verified, oldest first
}

// LoadCurrent reads the current key's public part, or returns ErrNoKey.
func LoadCurrent(dir string) (*KeyInfo, error) {
	cur, err := readCurrent(dir)
	if err != nil {
		return nil, err
	}
	return &cur.info, nil
}

// LoadPublic reads dir without unlocking; a statement failing Verify is an error.
func LoadPublic(dir string) (*DirInfo, error) {
	cur, err := readCurrent(dir)
	if err != nil {
		return nil, err
	}
	archived, err := readArchive(dir)
	if err != nil {
		return nil, err
	}
	info := &DirInfo{Dir: dir, Current: &cur.info}
	sts := []*RotationStatement{cur.rotation}
	for _, k := range archived {
		sts = append(sts, k.rotation)
		if !k.info.PublicKey.Equal(cur.info.PublicKey) { // an interrupted Rotate may have archived it already
			info.Archived = append(info.Archived, &k.info)
		}
	}
	files, err := readStatements(filepath.Join(dir, rotationsDirName))
	if err != nil {
		return nil, err
	}
	info.Rotations, err = mergeStatements(append(sts, files...))
	return info, err
}

func readStatements(dir string) ([]*RotationStatement, error) {
	names, err := listJSON(dir)
	if err != nil {
		return nil, err
	}
	var sts []*RotationStatement
	for _, n := range names {
		b, err := readFile(filepath.Join(dir, n), nil) // public: no permission check
		if err != nil {
			return nil, err
		}
		st, err := ParseRotationStatement(b)
		if err != nil {
			return nil, fmt.Errorf("keys: %s: %w", n, err)
		}
		sts = append(sts, st)
	}
	return sts, nil
}

// mergeStatements verifies sts and returns them by rotated_at without nils or repeats.
func mergeStatements(sts []*RotationStatement) ([]*RotationStatement, error) {
	seen := make(map[string]bool)
	var out []*RotationStatement
	for _, st := range sts {
		if st == nil {
			continue
		}
		if err := st.Verify(); err != nil {
			return nil, err
		}
		msg, err := st.SignedBytes()
		if err != nil {
			return nil, err
		}
		if !seen[string(msg)] {
			seen[string(msg)] = true
			out = append(out, st)
		}
	}
	slices.SortStableFunc(out, func(a, b *RotationStatement) int { return a.RotatedAt.Compare(b.RotatedAt) })
	return out, nil
}

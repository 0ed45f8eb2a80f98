package verify

import (
	"bytes"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/everycycle/appraise/keys"
	"github.com/everycycle/appraise/schema"
)

// fuzzKey is one of the fuzz corpus's two fixed keys: "old" signed before
// a rotation to "new", which is pinned. The seeds in
// testdata/fuzz/FuzzCheck were signed with them.
func fuzzKey(name string) ed25519.PrivateKey {
	seed := sha256.Sum256([]byte("appraise fuzz key " + name))
	return ed25519.NewKeyFromSeed(seed[:])
}

// FuzzCheck runs the whole policy (signatures, trust, rotation chains and
// what they vouch for, box links, whole runs) over a box, two cards and a
// rotation statement, and checks every verdict against the rules worked
// out again from the files themselves: nothing is accepted that a rule
// refuses, and the verdicts agree with each other.
func FuzzCheck(f *testing.F) {
	newPub, err := keys.NewPublicKey(fuzzKey("new").Public().(ed25519.PublicKey))
	if err != nil {
		f.Fatal(err)
	}
	oldPub := fuzzKey("old").Public().(ed25519.PublicKey)
	f.Fuzz(func(t *testing.T, box, card1, card2, statement []byte, wholeRun bool) {
		p := Policy{Trusted: &keys.KeyInfo{Tenant: "fuzz", PublicKey: newPub}}
		st, stErr := keys.ParseRotationStatement(statement)
		if stErr == nil {
			p.Rotations = []*keys.RotationStatement{st}
		}
		vs := check(p, wholeRun, "box", box, "card1", card1, "card2", card2)
		if len(vs) != 3 {
			t.Fatalf("%d verdicts for 3 files", len(vs))
		}
		files := [][]byte{box, card1, card2}
		boxes := map[string]bool{}
		for i, v := range vs {
			if v.OK != (v.Class == ClassOK) || (!v.OK && v.Error == "") {
				t.Fatalf("%s: OK %v, class %q, error %q", v.File, v.OK, v.Class, v.Error)
			}
			if !v.OK {
				continue
			}
			ver := reread(t, v, files[i])
			signer := ver.PublicKey
			switch v.Trust {
			case TrustPinned:
				if !bytes.Equal(signer, newPub.Ed25519()) {
					t.Fatalf("%s: pinned, but signed by %x", v.File, signer)
				}
			case TrustRotated:
				var d [32]byte
				hex.Decode(d[:], []byte(ver.Hash))
				if stErr != nil || st.Verify() != nil || !bytes.Equal(signer, oldPub) || !st.Bounded() || !st.Vouches(d) {
					t.Fatalf("%s: rotated, but no verified statement from the old key vouches for it", v.File)
				}
			default:
				t.Fatalf("%s: accepted with trust %q under a pinned key", v.File, v.Trust)
			}
			if v.Kind == KindBox {
				boxes[v.Hash] = true
			}
		}
		for i, v := range vs[1:] {
			if v.OK && v.Kind == KindCard {
				c, _, _ := schema.ReadCard(files[i+1])
				if v.Box != "box" || c.BoxReport != vs[0].Hash || vs[0].Fingerprint != v.Fingerprint {
					t.Fatalf("%s: linked to %q, box_report %s, box hash %s", v.File, v.Box, c.BoxReport, vs[0].Hash)
				}
			}
		}
		if wholeRun && vs[0].OK {
			checkWholeRun(t, files, vs)
		}
	})
}

// reread reads an accepted file again with schema's strict readers.
func reread(t *testing.T, v Verdict, data []byte) *schema.Verified {
	var ver *schema.Verified
	var err error
	if v.Kind == KindBox {
		_, ver, err = schema.ReadBox(data)
	} else {
		_, ver, err = schema.ReadCard(data)
	}
	if err != nil || ver.Hash != v.Hash {
		t.Fatalf("%s accepted, but it does not read as a %s: %v", v.File, v.Kind, err)
	}
	return ver
}

// checkWholeRun: an accepted box in a run directory has, for each device
// it lists, exactly one card among the files linking it and claiming it
// (by bus address, or by kind for a device without one), and the cards
// are not one report twice.
func checkWholeRun(t *testing.T, files [][]byte, vs []Verdict) {
	b, _, _ := schema.ReadBox(files[0])
	var claims []string
	var hashes []string
	for i, f := range files[1:] {
		c, ver, err := schema.ReadCard(f)
		if err != nil || c.BoxReport != vs[0].Hash {
			continue
		}
		claims = append(claims, deviceOf(c.Capability.Identity))
		hashes = append(hashes, ver.Hash)
		if !vs[i+1].OK {
			t.Fatalf("box accepted, but its card %s failed: %s", vs[i+1].File, vs[i+1].Error)
		}
	}
	if len(hashes) == 2 && hashes[0] == hashes[1] {
		t.Fatal("box accepted with one card twice")
	}
	var want []string
	for _, d := range b.DriverVersions {
		if slices.Contains([]byte(d.BusAddress), ':') {
			want = append(want, d.BusAddress)
		} else {
			want = append(want, d.BusAddress[:bytes.IndexByte([]byte(d.BusAddress), '-')+1])
		}
	}
	slices.Sort(want)
	slices.Sort(claims)
	if !slices.Equal(want, claims) {
		t.Fatalf("box accepted: it lists %v, its cards claim %v", want, claims)
	}
}

// TestFuzzSeedsMeanWhatTheySay checks that each committed seed of
// FuzzCheck still gets the verdicts it was made for, so that the fuzzer
// starts from accepted runs as well as refused ones.
func TestFuzzSeedsMeanWhatTheySay(t *testing.T) {
	newPub, err := keys.NewPublicKey(fuzzKey("new").Public().(ed25519.PublicKey))
	if err != nil {
		t.Fatal(err)
	}
	for name, expect := range map[string][]string{
		"pinned-run":            {"box:ok", "card1:ok", "card2:ok"},
		"rotated-run":           {"box:ok", "card1:ok", "card2:ok"},
		"retired-key-backdated": {"box:not-vouched", "card1:not-vouched", "card2:not-vouched"},
		"format1-statement":     {"box:not-vouched", "card1:not-vouched", "card2:not-vouched"},
		"copied-card":           {"box:duplicate-device", "card1:duplicate-device", "card2:duplicate-device"},
		"tampered-card":         {"box:ok", "card1:bad-signature", "card2:ok"},
		"software-run":          {"box:ok", "card1:ok", "card2:malformed"},
		"box-of-another-key":    {"box:untrusted", "card1:box-key", "card2:box-key"},
		"not-json":              {"box:malformed", "card1:malformed", "card2:malformed"},
	} {
		args := readSeed(t, filepath.Join("testdata", "fuzz", "FuzzCheck", name))
		p := Policy{Trusted: &keys.KeyInfo{Tenant: "fuzz", PublicKey: newPub}}
		if st, err := keys.ParseRotationStatement(args[3].([]byte)); err == nil {
			p.Rotations = []*keys.RotationStatement{st}
		}
		t.Run(name, func(t *testing.T) {
			want(t, check(p, args[4].(bool), "box", args[0].([]byte), "card1", args[1].([]byte), "card2", args[2].([]byte)), expect...)
		})
	}
}

// readSeed reads a corpus file of []byte and bool values.
func readSeed(t *testing.T, path string) []any {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []any
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n")[1:] {
		switch {
		case strings.HasPrefix(line, "[]byte("):
			s, err := strconv.Unquote(strings.TrimSuffix(strings.TrimPrefix(line, "[]byte("), ")"))
			if err != nil {
				t.Fatalf("%s: %v", path, err)
			}
			out = append(out, []byte(s))
		case strings.HasPrefix(line, "bool("):
			out = append(out, line == "bool(true)")
		}
	}
	return out
}

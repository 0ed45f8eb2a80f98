package verify

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/everycycle/appraise/keys"
	"github.com/everycycle/appraise/schema"
)

// check runs a Checker over in-memory files: name → data, all in one run
// directory when wholeRun.
func check(p Policy, wholeRun bool, files ...any) []Verdict {
	c := NewChecker(p)
	for i := 0; i < len(files); i += 2 {
		c.Add(Input{File: files[i].(string), Dir: "run", Data: files[i+1].([]byte), WholeRun: wholeRun})
	}
	return c.Verdicts()
}

// classes lists each verdict as "file:class".
func classes(vs []Verdict) []string {
	var out []string
	for _, v := range vs {
		out = append(out, v.File+":"+string(v.Class))
		if v.OK != (v.Class == ClassOK) {
			out = append(out, "OK disagrees with Class")
		}
	}
	return out
}

func want(t *testing.T, vs []Verdict, w ...string) {
	t.Helper()
	if got := classes(vs); !slices.Equal(got, w) {
		t.Errorf("verdicts %v, want %v", got, w)
		for _, v := range vs {
			t.Logf("%s: %s", v.File, v.Error)
		}
	}
}

func TestAWholeRunVerifies(t *testing.T) {
	tm := loadTemplates(t)
	k := newKey("a")
	r := sign(t, k, tm.h200Box, tm.h200Cards, "h1")
	vs := check(Policy{Trusted: k.info(t)}, true, "box", r.box, "c6", r.cards[0], "c7", r.cards[1])
	want(t, vs, "box:ok", "c6:ok", "c7:ok")
	for _, v := range vs {
		if v.Trust != TrustPinned || v.Fingerprint == "" || v.Hash == "" {
			t.Errorf("%s: %+v", v.File, v)
		}
	}
	if vs[1].Box != "box" || vs[1].Kind != KindCard || vs[0].Kind != KindBox {
		t.Errorf("card verdict %+v", vs[1])
	}
}

// TestEachDeviceNeedsExactlyOneCard: an attack on the two-GPU run (one
// card deleted, the other copied under a new name) fails, as do
// a missing card and a card for a device the box does not list.
func TestEachDeviceNeedsExactlyOneCard(t *testing.T) {
	tm := loadTemplates(t)
	k := newKey("a")
	r := sign(t, k, tm.h200Box, tm.h200Cards, "h1")
	p := Policy{Trusted: k.info(t)}

	vs := check(p, true, "box", r.box, "c7", r.cards[1], "c7-copy", r.cards[1])
	want(t, vs, "box:duplicate-device", "c7:duplicate-device", "c7-copy:duplicate-device")
	if !strings.Contains(vs[0].Error, "0000:00:07.0") || !strings.Contains(vs[0].Error, "none is 0000:00:06.0") {
		t.Errorf("box error %q", vs[0].Error)
	}

	want(t, check(p, true, "box", r.box, "c7", r.cards[1]), "box:incomplete-run", "c7:ok")

	alien := tm.h200Cards[0]
	alien.Capability.Identity.BusAddress = "0000:00:08.0"
	ra := sign(t, k, tm.h200Box, []schema.CardPayload{tm.h200Cards[0], tm.h200Cards[1], alien}, "h1")
	want(t, check(p, true, "box", ra.box, "c6", ra.cards[0], "c7", ra.cards[1], "c8", ra.cards[2]),
		"box:ok", "c6:ok", "c7:ok", "c8:unlisted-device")

	// Given by themselves, not as a run directory, files claim no whole run.
	want(t, check(p, false, "box", r.box, "c7", r.cards[1], "c7-copy", r.cards[1]), "box:ok", "c7:ok", "c7-copy:ok")
}

// TestSoftwareDevicesMatchByKind: a software adapter's card has no bus
// address; the box's software-0 is matched by kind, and a copy of the
// card is still a duplicate.
func TestSoftwareDevicesMatchByKind(t *testing.T) {
	tm := loadTemplates(t)
	k := newKey("a")
	r := sign(t, k, tm.swBox, []schema.CardPayload{tm.swCard}, "sw")
	p := Policy{}
	want(t, check(p, true, "box", r.box, "card", r.cards[0]), "box:ok", "card:ok")
	want(t, check(p, true, "box", r.box, "card", r.cards[0], "copy", r.cards[0]), "box:duplicate-device", "card:duplicate-device", "copy:duplicate-device")
	want(t, check(p, true, "box", r.box), "box:incomplete-run")
}

func TestLinksAndKeys(t *testing.T) {
	tm := loadTemplates(t)
	a, b := newKey("a"), newKey("b")
	ra := sign(t, a, tm.h200Box, tm.h200Cards[:1], "h1")
	rb := sign(t, b, tm.h200Box, tm.h200Cards[:1], "h1") // same box payload, other key: same hash
	pin := Policy{Trusted: a.info(t)}

	want(t, check(pin, false, "card", ra.cards[0]), "card:box-missing")
	want(t, check(Policy{}, false, "box", rb.box, "card", ra.cards[0]), "box:ok", "card:box-key")
	want(t, check(pin, false, "box", rb.box, "card", rb.cards[0]), "box:untrusted", "card:untrusted")

	other := b
	other.tenant = "mallory"
	rt := sign(t, other, tm.h200Box, tm.h200Cards[:1], "h1")
	pinB := Policy{Trusted: b.info(t)}
	vs := check(pinB, false, "box", rt.box)
	want(t, vs, "box:untrusted")
	if !strings.Contains(vs[0].Error, `tenant_identity "mallory" is not the pinned key's tenant "fixture"`) {
		t.Errorf("error %q", vs[0].Error)
	}
}

func TestDamagedFiles(t *testing.T) {
	tm := loadTemplates(t)
	k := newKey("a")
	r := sign(t, k, tm.h200Box, tm.h200Cards[:1], "h1")
	tampered := bytes.Replace(r.cards[0], []byte(`"samples": 5`), []byte(`"samples": 6`), 1)
	if bytes.Equal(tampered, r.cards[0]) {
		t.Fatal("nothing to tamper with")
	}
	c := NewChecker(Policy{})
	c.Add(Input{File: "unreadable", Err: errors.New("permission denied")})
	c.Add(Input{File: "notjson", Data: []byte("hello")})
	c.Add(Input{File: "tampered", Data: tampered})
	c.Add(Input{File: "box", Data: r.box})
	c.Add(Input{File: "dup-member", Data: bytes.Replace(r.box, []byte(`"payload": {`), []byte(`"payload": {"probed_at": "2020-01-01T00:00:00Z",`), 1)})
	vs := c.Verdicts()
	want(t, vs, "unreadable:unreadable", "notjson:malformed", "tampered:bad-signature", "box:ok", "dup-member:malformed")
	if vs[1].Kind != KindUnknown || vs[2].Kind != KindCard || vs[4].Kind != KindBox {
		t.Errorf("kinds %v %v %v", vs[1].Kind, vs[2].Kind, vs[4].Kind)
	}
}

// TestARetiredKeyVouchesOnlyForWhatItSigned: after a rotation, a report
// the old key signed (and recorded) before it verifies as rotated against
// the new key; one it signs afterwards, dated before the rotation, does
// not; nor does anything through a format-1 statement, which lists
// nothing.
func TestARetiredKeyVouchesOnlyForWhatItSigned(t *testing.T) {
	tm := loadTemplates(t)
	dir := filepath.Join(t.TempDir(), "keys")
	enc := keys.Encryption{Passphrase: "pw", ScryptWorkFactor: 4}
	if _, err := keys.Init(dir, "fixture", enc); err != nil {
		t.Fatal(err)
	}
	old, err := keys.LoadSigner(dir, keys.Decryption{Passphrase: "pw"})
	if err != nil {
		t.Fatal(err)
	}
	before := sign(t, old, tm.h200Box, tm.h200Cards, "before")
	if err := keys.RecordSigned(dir, old); err != nil {
		t.Fatal(err)
	}
	st, err := keys.Rotate(dir, keys.Decryption{Passphrase: "pw"}, enc, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	backdated := tm.h200Box
	backdated.ProbedAt = "2020-01-01T00:00:00Z"
	after := sign(t, old, backdated, tm.h200Cards, "after")
	pub, err := keys.LoadPublic(dir)
	if err != nil {
		t.Fatal(err)
	}
	p := Policy{Trusted: pub.Current, Rotations: []*keys.RotationStatement{st}}
	vs := check(p, true, "box", before.box, "c6", before.cards[0], "c7", before.cards[1])
	want(t, vs, "box:ok", "c6:ok", "c7:ok")
	if vs[0].Trust != TrustRotated {
		t.Errorf("trust %q, want rotated", vs[0].Trust)
	}
	vs = check(p, true, "box", after.box, "c6", after.cards[0])
	want(t, vs, "box:not-vouched", "c6:not-vouched")
	if !strings.Contains(vs[0].Error, "does not list this report") {
		t.Errorf("error %q", vs[0].Error)
	}

	// The same hand-over as a format-1 statement, which lists nothing.
	v1 := &keys.RotationStatement{Tenant: st.Tenant, OldKey: st.OldKey, NewKey: st.NewKey, RotatedAt: st.RotatedAt}
	msg, err := v1.SignedBytes()
	if err != nil {
		t.Fatal(err)
	}
	cur, err := keys.LoadSigner(dir, keys.Decryption{Passphrase: "pw"})
	if err != nil {
		t.Fatal(err)
	}
	v1.OldSig, v1.NewSig = old.Sign(msg), cur.Sign(msg)
	p.Rotations = []*keys.RotationStatement{v1}
	vs = check(p, false, "box", before.box)
	want(t, vs, "box:not-vouched")
	if !strings.Contains(vs[0].Error, "format-1") {
		t.Errorf("error %q", vs[0].Error)
	}
	p.Rotations = nil
	want(t, check(p, false, "box", before.box), "box:untrusted")
}

func TestSniff(t *testing.T) {
	for in, want := range map[string]Kind{
		`{"payload":{"host":{},"report_version":"1"}}`: KindBox,
		`{"signature":{},"payload":{"capability":{}}}`: KindCard,
		`{"payload":{"host":1,"capability":2}}`:        KindCard,
		`{"payload":[]}`:                               KindCard,
		`[]`:                                           KindUnknown,
		`not json`:                                     KindUnknown,
		`{"payload":{"host":{}`:                        KindBox,
		`{"a":{"payload":{"host":{}}},"payload":{"cap":true}}`: KindCard,
	} {
		if got := sniff([]byte(in)); got != want {
			t.Errorf("sniff(%s) = %s, want %s", in, got, want)
		}
	}
}

// TestFilesReadsBoundedRegularFiles: a FIFO, a symlink to /dev/zero and
// a file over the bound each get an unreadable verdict at once; the run
// beside them is still checked.
func TestFilesReadsBoundedRegularFiles(t *testing.T) {
	tm := loadTemplates(t)
	k := newKey("a")
	dir := t.TempDir()
	sign(t, k, tm.swBox, []schema.CardPayload{tm.swCard}, "sw").write(t, dir)
	if err := syscall.Mkfifo(filepath.Join(dir, "card-fifo.appraisal.json"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/dev/zero", filepath.Join(dir, "card-zero.appraisal.json")); err != nil {
		t.Fatal(err)
	}
	big, err := os.Create(filepath.Join(dir, "card-big.appraisal.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := big.Truncate(MaxFileBytes + 1); err != nil {
		t.Fatal(err)
	}
	big.Close()
	vs, err := Files([]string{dir, filepath.Join(dir, "card-fifo.appraisal.json")}, Options{Policy: Policy{Trusted: k.info(t)}})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]Verdict{}
	for _, v := range vs {
		got[filepath.Base(v.File)] = v
	}
	if len(vs) != 5 {
		t.Errorf("%d verdicts, want 5 (the FIFO named twice is read once): %v", len(vs), classes(vs))
	}
	for name, sub := range map[string]string{"card-fifo.appraisal.json": "not a regular file", "card-zero.appraisal.json": "not a regular file", "card-big.appraisal.json": "file too large"} {
		if v := got[name]; v.Class != ClassUnreadable || !strings.Contains(v.Error, sub) {
			t.Errorf("%s: %s %q, want unreadable saying %q", name, v.Class, v.Error, sub)
		}
	}
	if v := got["card-0.appraisal.json"]; !v.OK {
		t.Errorf("the real card: %+v", v)
	}
}

// TestFilesFindsTheBoxBeside: a card given alone links the box beside
// it, unless a box is named; a directory without reports is an error.
func TestFilesFindsTheBoxBeside(t *testing.T) {
	tm := loadTemplates(t)
	k := newKey("a")
	dir := t.TempDir()
	r := sign(t, k, tm.swBox, []schema.CardPayload{tm.swCard}, "sw")
	r.write(t, dir)
	card := filepath.Join(dir, "card-0.appraisal.json")
	vs, err := Files([]string{card}, Options{})
	if err != nil || len(vs) != 1 || !vs[0].OK || vs[0].Box != filepath.Join(dir, "box-"+r.hash[:12]+".appraisal.json") {
		t.Fatalf("card alone: %+v %v", vs, err)
	}
	other := filepath.Join(t.TempDir(), "other-box.json")
	if err := os.WriteFile(other, sign(t, k, tm.swBox, nil, "elsewhere").box, 0o644); err != nil {
		t.Fatal(err)
	}
	vs, err = Files([]string{card}, Options{Box: other})
	if err != nil {
		t.Fatal(err)
	}
	want(t, vs, card+":box-missing", other+":ok")
	if _, err := Files([]string{t.TempDir()}, Options{}); err == nil {
		t.Error("a directory without reports verified")
	}
}

func TestReadStatements(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "bad.json"), []byte(`{"payload":{}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadStatements([]string{dir}); err == nil || !strings.Contains(err.Error(), "bad.json") {
		t.Errorf("err = %v, want one naming bad.json", err)
	}
	if sts, err := ReadStatements(nil); err != nil || sts != nil {
		t.Errorf("no paths: %v %v", sts, err)
	}
}

// TestHashIsTheDigestSigned: what a verdict calls a report's hash is the
// SHA-256 of the bytes its key signed, the digest a rotation statement
// lists.
func TestHashIsTheDigestSigned(t *testing.T) {
	tm := loadTemplates(t)
	box := tm.swBox
	c, err := schema.Canonical(box)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(c)
	_, hash, err := schema.SignBox(box, newKey("a"))
	if err != nil || hash != hex.EncodeToString(sum[:]) {
		t.Errorf("hash %s, digest %x", hash, sum)
	}
}

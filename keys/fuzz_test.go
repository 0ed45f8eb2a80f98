package keys

import (
	"bytes"
	"encoding/json"
	"testing"
)

// FuzzParseRotationStatement: whatever parses is in the one form the
// writer writes (it re-encodes and parses back to the same signed bytes,
// and verifies the same way), and its list of what the old key signed
// ascends without repeats, so Vouches finds every entry. The seeds in
// testdata/fuzz are statements of both formats and damaged ones.
func FuzzParseRotationStatement(f *testing.F) {
	f.Fuzz(func(t *testing.T, b []byte) {
		st, err := ParseRotationStatement(b)
		if err != nil {
			return
		}
		msg, err := st.SignedBytes()
		if err != nil {
			t.Fatalf("parsed, but SignedBytes fails: %v", err)
		}
		again, err := json.Marshal(st)
		if err != nil {
			t.Fatal(err)
		}
		back, err := ParseRotationStatement(again)
		if err != nil {
			t.Fatalf("re-encoded statement does not parse: %v\n%s", err, again)
		}
		msg2, _ := back.SignedBytes()
		if !bytes.Equal(msg, msg2) || (st.Verify() == nil) != (back.Verify() == nil) || st.Bounded() != back.Bounded() {
			t.Fatalf("round trip changed the statement:\n%s\n%s", msg, msg2)
		}
		for i, d := range st.Signed {
			if i > 0 && bytes.Compare(st.Signed[i-1][:], d[:]) >= 0 {
				t.Fatalf("signed[%d] out of order", i)
			}
			if !st.Vouches(d) {
				t.Fatalf("signed[%d] listed but not vouched for", i)
			}
		}
	})
}

// FuzzParsePublicKeyFile: a --trust file that parses round-trips through
// the export form, which is strict.
func FuzzParsePublicKeyFile(f *testing.F) {
	f.Add([]byte(`{"format": "appraise-public-key", "version": "1", "tenant": "t", "pubkey": "HqzKLiFN3Va/J1Scl32NOotg9BIoN7vCWP5niDdVLyE=", "fingerprint": "a70830b68cad5357", "created_at": "2026-11-29T19:59:25Z"}`))
	f.Add([]byte("HqzKLiFN3Va/J1Scl32NOotg9BIoN7vCWP5niDdVLyE=\n"))
	f.Add([]byte(`{"format": "appraise-public-key", "format": "x"}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		info, err := ParsePublicKeyFile(b)
		if err != nil || info.Tenant == "" {
			return
		}
		out, err := info.ExportPublic()
		if err != nil {
			t.Fatal(err)
		}
		back, err := ParsePublicKeyFile(out)
		if err != nil || !back.PublicKey.Equal(info.PublicKey) || back.Tenant != info.Tenant || !back.CreatedAt.Equal(info.CreatedAt) {
			t.Fatalf("export form does not read back: %v\n%s", err, out)
		}
	})
}

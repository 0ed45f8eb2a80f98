package schema_test

import (
	"bytes"
	"testing"

	"github.com/everycycle/appraise/schema"
)

// FuzzReadCard feeds the card reader arbitrary bytes, seeded with a valid
// card, tampered copies and malformed documents. Whatever it accepts must
// validate and carry a signature over exactly its canonical payload.
func FuzzReadCard(f *testing.F) {
	card, box, err := signedPair()
	if err != nil {
		f.Fatal(err)
	}
	f.Add(card)
	f.Add(box)
	for _, edit := range [][2]string{
		{`"median": 810000000000`, `"median": 810000000001`},
		{`"report_version": "1"`, `"report_version": "2"`},
		{`"passed": true`, `"passed": false`},
		{`"alg": "ed25519"`, `"alg": "rsa"`},
		{`"payload": {`, `"payload": {"payload": {},`},
		{`"software": false`, `"software": true`},
		{`}`, `}}`},
	} {
		f.Add(bytes.Replace(card, []byte(edit[0]), []byte(edit[1]), 1))
	}
	for _, s := range []string{"", "null", "{}", `{"payload":null,"signature":null}`, "[", `{"payload":{}}`, "\xef\xbb\xbf{}"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		p, v, err := schema.ReadCard(data)
		if err != nil {
			return
		}
		if err := schema.Validate(p); err != nil {
			t.Fatalf("accepted an invalid card: %v", err)
		}
		if h, err := schema.Hash(p); err != nil || h != v.Hash {
			t.Fatalf("accepted card hashes to %s, reader said %s (%v)", h, v.Hash, err)
		}
	})
}

// FuzzReadBox does the same for box reports.
func FuzzReadBox(f *testing.F) {
	_, box, err := signedPair()
	if err != nil {
		f.Fatal(err)
	}
	f.Add(box)
	f.Add(bytes.Replace(box, []byte(`"astra"`), []byte(`"astro"`), 1))
	f.Fuzz(func(t *testing.T, data []byte) {
		p, _, err := schema.ReadBox(data)
		if err != nil {
			return
		}
		if err := schema.Validate(p); err != nil {
			t.Fatalf("accepted an invalid box: %v", err)
		}
	})
}

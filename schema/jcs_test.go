package schema_test

import (
	"bufio"
	"bytes"
	"encoding/hex"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/everycycle/appraise/schema"
)

// TestJCSVectors runs every RFC 8785 conformance vector in testdata/jcs.
func TestJCSVectors(t *testing.T) {
	inputs, err := filepath.Glob("testdata/jcs/input/*.json")
	if err != nil || len(inputs) < 10 {
		t.Fatalf("want the 10 JCS vectors, found %d (%v)", len(inputs), err)
	}
	for _, in := range inputs {
		name := strings.TrimSuffix(filepath.Base(in), ".json")
		t.Run(name, func(t *testing.T) {
			raw := mustRead(t, in)
			want := mustRead(t, filepath.Join("testdata/jcs/output", name+".json"))
			got, err := schema.CanonicalizeJSON(raw)
			if err != nil {
				t.Fatalf("CanonicalizeJSON: %v", err)
			}
			if !bytes.Equal(got, want) {
				t.Fatalf("canonical form differs\n got: %s\nwant: %s", got, want)
			}
			hexFile := filepath.Join("testdata/jcs/outhex", name+".txt")
			if hx, err := os.ReadFile(hexFile); err == nil {
				wantHex, err := hex.DecodeString(strings.Join(strings.Fields(string(hx)), ""))
				if err != nil {
					t.Fatalf("%s: %v", hexFile, err)
				}
				if !bytes.Equal(got, wantHex) {
					t.Fatalf("canonical bytes differ from %s", hexFile)
				}
			}
		})
	}
}

// TestJCSNumbers checks ES6 number serialisation on the first 1000 lines
// of the official test file: each number, written in Go's exponent form,
// canonicalises to the file's form.
func TestJCSNumbers(t *testing.T) {
	f, err := os.Open("testdata/jcs/numbers/es6testfile100m-first1000.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	n := 0
	for sc := bufio.NewScanner(f); sc.Scan(); n++ {
		bits, want, ok := strings.Cut(sc.Text(), ",")
		if !ok {
			t.Fatalf("line %d: no comma", n+1)
		}
		u, err := strconv.ParseUint(bits, 16, 64)
		if err != nil {
			t.Fatalf("line %d: %v", n+1, err)
		}
		f := math.Float64frombits(u)
		in := strconv.FormatFloat(f, 'e', -1, 64)
		doc, err := schema.CanonicalizeJSON([]byte("[" + in + "]"))
		if err != nil || string(doc) != "["+want+"]" {
			t.Fatalf("line %d: [%s] canonicalises to %s (%v), want [%s]", n+1, in, doc, err, want)
		}
	}
	if n != 1000 {
		t.Fatalf("read %d lines, want 1000", n)
	}
}

func mustRead(t testing.TB, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

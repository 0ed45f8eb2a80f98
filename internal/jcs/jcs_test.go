package jcs

import "testing"

func TestCanonicalize(t *testing.T) {
	raw := []byte(`{ "b": 1.50, "a": [1e2, "\u00e9"] }`)
	in := string(raw)
	got, err := Canonicalize(raw)
	if err != nil || string(got) != `{"a":[100,"é"],"b":1.5}` {
		t.Fatalf("Canonicalize = %s, %v", got, err)
	}
	if string(raw) != in {
		t.Fatalf("Canonicalize changed its input to %s", raw)
	}
	if _, err := Canonicalize([]byte(`{"a":1,"a":2}`)); err == nil {
		t.Fatal("duplicate member names were accepted")
	}
}

func TestMarshal(t *testing.T) {
	got, err := Marshal(struct {
		Z string `json:"z"`
		A int    `json:"a"`
	}{"<", 1})
	if err != nil || string(got) != `{"a":1,"z":"<"}` {
		t.Fatalf("Marshal = %s, %v", got, err)
	}
}

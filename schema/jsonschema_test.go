package schema

import (
	"bytes"
	"flag"
	"os"
	"reflect"
	"testing"

	"github.com/invopop/jsonschema"
)

var update = flag.Bool("update", false, "rewrite the committed JSON Schema files")

// TestCommittedJSONSchema checks that card.schema.json and box.schema.json
// are what the types generate; run with -update to refresh them.
func TestCommittedJSONSchema(t *testing.T) {
	for _, kind := range []string{KindCard, KindBox} {
		got, err := JSONSchema(kind)
		if err != nil {
			t.Fatal(err)
		}
		file := kind + ".schema.json"
		if *update {
			if err := os.WriteFile(file, got, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		want, err := os.ReadFile(file)
		if err != nil {
			t.Fatalf("%v (run go test ./schema -update)", err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s is stale: run go test ./schema -update", file)
		}
		for _, must := range []string{`"matrix_engine"`, `"box_report"`, `"tenant_pubkey"`, `"additionalProperties": false`} {
			if kind == KindCard && !bytes.Contains(got, []byte(must)) {
				t.Errorf("card schema lacks %s", must)
			}
		}
	}
	if _, err := JSONSchema("toaster"); err == nil {
		t.Error("unknown kind accepted")
	}
}

// TestCommentMapCurrent checks comments_gen.go against the source; run
// go generate ./schema to refresh it.
func TestCommentMapCurrent(t *testing.T) {
	r := new(jsonschema.Reflector)
	if err := r.AddGoComments("github.com/everycycle/appraise/schema", "."); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(r.CommentMap, commentMap) {
		t.Fatal("comments_gen.go is stale: run go generate ./schema")
	}
}

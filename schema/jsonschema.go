package schema

import (
	"encoding/json"
	"fmt"
	"reflect"

	"github.com/invopop/jsonschema"
)

//go:generate go run ./internal/gencomments -out comments_gen.go

// Kinds of report that JSONSchema describes.
const (
	KindCard = "card"
	KindBox  = "box"
)

// JSONSchema returns the JSON Schema (draft 2020-12) of a card or box
// report file, with the field docs as descriptions. Validate is stricter.
func JSONSchema(kind string) ([]byte, error) {
	var v any
	switch kind {
	case KindCard:
		v = &Card{}
	case KindBox:
		v = &Box{}
	default:
		return nil, fmt.Errorf("schema: unknown report kind %q (want %q or %q)", kind, KindCard, KindBox)
	}
	r := &jsonschema.Reflector{
		BaseSchemaID: "https://everycycle.dev/appraise/schema/v" + ReportVersion,
		CommentMap:   commentMap,
		Namer:        func(t reflect.Type) string { return t.Name() },
	}
	s := r.Reflect(v)
	s.ID = jsonschema.ID("https://everycycle.dev/appraise/schema/v" + ReportVersion + "/" + kind + ".schema.json")
	out, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("schema: marshal JSON Schema: %w", err)
	}
	return append(out, '\n'), nil
}

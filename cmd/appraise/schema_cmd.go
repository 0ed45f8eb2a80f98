package main

import (
	"github.com/everycycle/appraise/schema"
)

// schemaCmd prints the JSON Schema generated from the report types.
type schemaCmd struct {
	Kind string `arg:"" optional:"" default:"card" enum:"card,box" help:"Which report: card or box (default card)."`
}

func (c *schemaCmd) Run(e *env) error {
	out, err := schema.JSONSchema(c.Kind)
	if err != nil {
		return err
	}
	_, err = e.stdout.Write(out)
	return err
}

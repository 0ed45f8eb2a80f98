// Package web holds the verifier page: one HTML file that checks reports in a browser.
package web

import (
	"bytes"
	_ "embed"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
)

//go:embed dist/verify.html
var page []byte

const dataSlot = `<script type="application/json" id="appraise-data">null</script>`

// File is one file to embed in the page.
type File struct {
	Name   string // what the page calls the file
	Dir    string // directory read from, or ""; one directory holds one run
	Listed bool   // from a directory given whole: a box needs all its cards
	Beside bool   // a box not asked for, used only to find a card's box
	Data   []byte // the bytes exactly as read
}

// embedded is the JSON of the data slot; base64 keeps invalid UTF-8 intact.
type embedded struct {
	Files []embeddedFile `json:"files"`
	Trust *embeddedFile  `json:"trust,omitempty"`
}

type embeddedFile struct {
	Name   string `json:"name"`
	Dir    string `json:"dir,omitempty"`
	Listed bool   `json:"listed,omitempty"`
	Beside bool   `json:"beside,omitempty"`
	Data   string `json:"data"`
}

// Page returns a copy of the page with no reports in it.
func Page() []byte {
	return bytes.Clone(page)
}

// WithReports returns the page with files embedded and trust, if not nil, pinned.
func WithReports(files []File, trust *File) ([]byte, error) {
	if len(files) == 0 {
		return nil, errors.New("web: no report to embed")
	}
	d := embedded{Files: make([]embeddedFile, len(files))}
	for i, f := range files {
		d.Files[i] = embeddedFile{Name: f.Name, Dir: f.Dir, Listed: f.Listed, Beside: f.Beside, Data: base64.StdEncoding.EncodeToString(f.Data)}
	}
	if trust != nil {
		d.Trust = &embeddedFile{Name: trust.Name, Data: base64.StdEncoding.EncodeToString(trust.Data)}
	}
	// json.Marshal escapes <, > and &: the data cannot end its script element.
	j, err := json.Marshal(d)
	if err != nil {
		return nil, fmt.Errorf("web: encode reports: %w", err)
	}
	if bytes.Count(page, []byte(dataSlot)) != 1 {
		return nil, errors.New("web: the page has no single data slot (rebuild it with scripts/web-bundle)")
	}
	slot := []byte(`<script type="application/json" id="appraise-data">` + string(j) + `</script>`)
	return bytes.Replace(page, []byte(dataSlot), slot, 1), nil
}

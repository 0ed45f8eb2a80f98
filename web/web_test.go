package web

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"regexp"
	"testing"
)

// TestPageIsSelfContained checks the built page: one file that loads
// nothing from elsewhere, says it is generated, and has its data slot.
func TestPageIsSelfContained(t *testing.T) {
	p := Page()
	if !bytes.Contains(p, []byte("GENERATED FILE")) {
		t.Error("the page does not say it is generated")
	}
	if bytes.Count(p, []byte(dataSlot)) != 1 {
		t.Errorf("the page holds %d data slots, want 1", bytes.Count(p, []byte(dataSlot)))
	}
	if m := regexp.MustCompile(`(?i)<(script|link|img|iframe)[^>]+(src|href)=`).Find(p); m != nil {
		t.Errorf("the page loads something from elsewhere: %s", m)
	}
	if !bytes.Contains(p, []byte(`id="verdict"`)) {
		t.Error("the page has no verdict element")
	}
}

// TestWithReports embeds bytes that would break out of a script element
// and invalid UTF-8, and reads them back exactly.
func TestWithReports(t *testing.T) {
	evil := []byte("</script><script>alert(1)</script>\xff")
	out, err := WithReports([]File{{Name: "card.json", Dir: "d", Listed: true, Data: evil}}, &File{Name: "pub.json", Data: []byte("key")})
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(out, []byte("alert(1)</script>")) {
		t.Fatal("embedded data ends the script element")
	}
	m := regexp.MustCompile(`<script type="application/json" id="appraise-data">(.*?)</script>`).FindSubmatch(out)
	if m == nil {
		t.Fatal("no data slot in the page")
	}
	var d embedded
	if err := json.Unmarshal(m[1], &d); err != nil {
		t.Fatal(err)
	}
	got, _ := base64.StdEncoding.DecodeString(d.Files[0].Data)
	if !bytes.Equal(got, evil) || d.Files[0].Name != "card.json" || !d.Files[0].Listed || d.Files[0].Dir != "d" {
		t.Fatalf("read back %+v (%q)", d.Files[0], got)
	}
	if d.Trust == nil || d.Trust.Name != "pub.json" {
		t.Fatalf("trust read back as %+v", d.Trust)
	}
	if !bytes.Equal(Page(), page) || bytes.Contains(Page(), []byte("card.json")) {
		t.Fatal("WithReports changed the page it started from")
	}
	if _, err := WithReports(nil, nil); err == nil {
		t.Fatal("a page with no report was written")
	}
}

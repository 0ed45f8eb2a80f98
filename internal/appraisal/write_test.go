package appraisal

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/everycycle/appraise/schema"
)

// TestWriteAllWritesOneRun: the files land together in a new directory;
// a second run is refused unless overwrite, which replaces the first
// whole (rundir's tests cover the rest).
func TestWriteAllWritesOneRun(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	files := []File{{"box-1.appraisal.json", []byte("box")}, {"card-a.appraisal.json", []byte("card")}}
	if err := CheckOut(dir, false); err != nil {
		t.Fatal(err)
	}
	if err := WriteAll(dir, files, false); err != nil {
		t.Fatal(err)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 2 {
		t.Fatalf("want 2 files and no temporaries, got %v", entries)
	}
	for _, f := range files {
		b, err := os.ReadFile(filepath.Join(dir, f.Name))
		if err != nil || string(b) != string(f.Data) {
			t.Fatalf("%s: %q %v", f.Name, b, err)
		}
	}
	if err := WriteAll(dir, files, false); !errors.Is(err, ErrExists) {
		t.Fatalf("second write: %v, want ErrExists", err)
	}
	if err := WriteAll(dir, files[:1], true); err != nil {
		t.Fatalf("overwrite: %v", err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Fatalf("after overwrite with one file: %v", entries)
	}
}

// TestIdenticalCardsGetTheirOwnFiles: two cards with the same VBIOS hash
// (identical GPUs) are named apart by address; a lone card keeps the
// short name.
func TestIdenticalCardsGetTheirOwnFiles(t *testing.T) {
	hash := "6db1659cde1985c6" + "00000000000000000000000000000000000000000000000000"
	card := func() schema.CardPayload {
		var c schema.CardPayload
		c.Capability.Identity.VBIOSHash = hash
		return c
	}
	r := &Run{Cards: []schema.CardPayload{card(), card()}, Box: schema.BoxPayload{DriverVersions: []schema.DriverBinding{
		{BusAddress: "0000:00:06.0"}, {BusAddress: "0000:00:07.0"}}}}
	got := r.cardNames()
	if got[0] != "card-6db1659cde1985c6-0000-00-06.0" || got[1] != "card-6db1659cde1985c6-0000-00-07.0" {
		t.Errorf("names %v", got)
	}
	r.Cards, r.Box.DriverVersions = r.Cards[:1], r.Box.DriverVersions[:1]
	if got := r.cardNames(); got[0] != "card-6db1659cde1985c6" {
		t.Errorf("one card: %v", got)
	}
}

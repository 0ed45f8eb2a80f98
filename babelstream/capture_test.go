package babelstream

import (
	"os"
	"testing"
)

// TestParseCSVRealCapture reads a real --csv capture: BabelStream built
// from its v5.0 tag (CUDA), run on an NVIDIA H200 with
// `--csv -s 268435456` on 2026-11-29 (bench/h200.sh).
func TestParseCSVRealCapture(t *testing.T) {
	f, err := os.Open("testdata/babelstream-5.0tag-cuda-h200-double-csv.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r, err := ParseCSV(f)
	if err != nil {
		t.Fatal(err)
	}
	if r.Elements != 268435456 || r.ElementBytes != 8 {
		t.Fatalf("elements %d × %d bytes", r.Elements, r.ElementBytes)
	}
	for name, want := range map[string]float64{"Copy": 3.43522e12, "Triad": 3.89315e12, "Dot": 4.41438e12} {
		k, ok := r.Kernel(name)
		if !ok || k.BandwidthBytesPerSec != want {
			t.Errorf("%s = %+v, want %g B/s", name, k, want)
		}
	}
}

package babelstream

import (
	"bytes"
	"math"
	"os"
	"testing"
)

// A real capture of the human table from the project's H200 (see
// ../shared/samples/README.md): input ParseCSV must refuse.
const sampleDouble = "testdata/babelstream-5.0-cuda-h200-double.txt"

func readSample(t testing.TB, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestParseNumber(t *testing.T) {
	tests := []struct {
		s           string
		pow10, pow2 int
		want        float64
		ok          bool
	}{
		{"3956318.317", 6, 0, 3956318317000, true},
		{"3.95632e+06", 6, 0, 3956320000000, true},
		{"0.00109", 0, 0, 0.00109, true},
		{"1e-05", 0, 0, 1e-5, true},
		{"1.5", 0, 20, 1572864, true},
		{"inf", 0, 0, 0, false},
		{"nan", 0, 0, 0, false},
		{"0x1p3", 0, 0, 0, false},
		{"1_000", 0, 0, 0, false},
		{"", 0, 0, 0, false},
		{"1e", 0, 0, 0, false},
		{"1e99999", 0, 0, 0, false},
		{"1e300", 9, 0, 0, false},
		{"--1", 0, 0, 0, false},
		{"1.2.3", 0, 0, 0, false},
	}
	for _, tt := range tests {
		got, err := parseNumber(tt.s, tt.pow10, tt.pow2)
		if (err == nil) != tt.ok || (tt.ok && got != tt.want) {
			t.Errorf("parseNumber(%q, %d, %d) = %v, %v; want %v ok=%v", tt.s, tt.pow10, tt.pow2, got, err, tt.want, tt.ok)
		}
	}
}

func TestUnitBytes(t *testing.T) {
	want := map[Unit]float64{MB: 1e6, GB: 1e9, TB: 1e12, MiB: 1 << 20, GiB: 1 << 30, TiB: 1 << 40, "KB": 0}
	for u, w := range want {
		if got := u.Bytes(); got != w {
			t.Errorf("%s.Bytes() = %v, want %v", u, got, w)
		}
	}
}

// checkResult asserts the invariants of any successful parse: no partial
// results, every figure finite and consistent.
func checkResult(t *testing.T, res *Result) {
	t.Helper()
	if res == nil || len(res.Kernels) == 0 || res.Elements <= 0 || res.ElementBytes == 0 || res.Unit.Bytes() == 0 {
		t.Fatalf("accepted an incomplete result: %+v", res)
	}
	for _, k := range res.Kernels {
		for _, v := range []float64{k.Bandwidth, k.BandwidthBytesPerSec, k.MinSeconds, k.MaxSeconds, k.AvgSeconds} {
			if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
				t.Fatalf("kernel %+v has a bad figure", k)
			}
		}
		if k.Bandwidth <= 0 || k.BytesMoved <= 0 || k.MinSeconds > k.MaxSeconds {
			t.Fatalf("kernel %+v is inconsistent", k)
		}
	}
}

func FuzzParseCSV(f *testing.F) {
	f.Add([]byte(handCSVDouble))
	f.Add([]byte(handCSVFloatMiB))
	f.Add([]byte(handCSVTag50))
	f.Fuzz(func(t *testing.T, in []byte) {
		res, err := ParseCSV(bytes.NewReader(in))
		if err == nil {
			checkResult(t, res)
		}
	})
}

func FuzzParseList(f *testing.F) {
	f.Add([]byte("\nDevices:\n0: NVIDIA H200\n1: NVIDIA H200\n\n"))
	f.Fuzz(func(t *testing.T, in []byte) {
		names, err := ParseList(bytes.NewReader(in))
		if err == nil && len(names) == 0 {
			t.Fatal("accepted a list without devices")
		}
	})
}

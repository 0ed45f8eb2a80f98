package babelstream

import (
	"bytes"
	"errors"
	"math"
	"os"
	"reflect"
	"strings"
	"testing"
)

// Real captures from the project's H200 (see ../shared/samples/README.md).
const (
	sampleDouble = "testdata/babelstream-5.0-cuda-h200-double.txt"
	sampleFloat  = "testdata/babelstream-5.0-cuda-h200-float.txt"
)

func readSample(t testing.TB, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestParseSamples(t *testing.T) {
	const n = 268435456
	details := []string{
		"Memory Allocation: DEFAULT",
		"Parallel for kernel config: thread blocks of size 256",
		"Reduction kernel config: 528 groups of (fixed) size 1024",
	}
	tests := []struct {
		path    string
		prec    Precision
		size    int
		array   Size
		total   Size
		kernels []Kernel
	}{
		{sampleDouble, Double, 8, Size{2147.5, MB}, Size{6442.5, MB}, []Kernel{
			{"Copy", 3956318.317, 3956318317000, 2 * 8 * n, 0.00109, 0.00112, 0.00109},
			{"Mul", 3937299.108, 3937299108000, 2 * 8 * n, 0.00109, 0.00112, 0.00110},
			{"Add", 4353492.750, 4353492750000, 3 * 8 * n, 0.00148, 0.00150, 0.00149},
			{"Triad", 4355874.031, 4355874031000, 3 * 8 * n, 0.00148, 0.00150, 0.00148},
			{"Dot", 4487409.868, 4487409868000, 2 * 8 * n, 0.00096, 0.00100, 0.00097},
		}},
		{sampleFloat, Float, 4, Size{1073.7, MB}, Size{3221.2, MB}, []Kernel{
			{"Copy", 3135571.077, 3135571077000, 2 * 4 * n, 0.00068, 0.00072, 0.00069},
			{"Mul", 3062644.788, 3062644788000, 2 * 4 * n, 0.00070, 0.00074, 0.00071},
			{"Add", 3647481.050, 3647481050000, 3 * 4 * n, 0.00088, 0.00090, 0.00089},
			{"Triad", 3615312.625, 3615312625000, 3 * 4 * n, 0.00089, 0.00092, 0.00090},
			{"Dot", 3710311.285, 3710311285000, 2 * 4 * n, 0.00058, 0.00061, 0.00059},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			got, err := Parse(bytes.NewReader(readSample(t, tt.path)))
			if err != nil {
				t.Fatal(err)
			}
			want := &Result{
				Version: "5.0", Implementation: "CUDA", Selection: "Classic", Order: "Classic",
				NumTimes: 100, Precision: tt.prec, ElementBytes: tt.size, Elements: n,
				ArraySize: tt.array, TotalSize: tt.total, Unit: MB,
				DeviceName: "NVIDIA H200", DeviceIndex: 0, Driver: "13000",
				Details: details, Kernels: tt.kernels,
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("Parse:\n got %+v\nwant %+v", got, want)
			}
		})
	}
}

func TestParseCopyFigure(t *testing.T) {
	res, err := Parse(bytes.NewReader(readSample(t, sampleDouble)))
	if err != nil {
		t.Fatal(err)
	}
	k, ok := res.Kernel("Copy")
	// 3956318.317 MB/s with MB = 10^6 bytes: exactly 3,956,318,317,000 B/s.
	if !ok || k.BandwidthBytesPerSec != 3.956318317e12 {
		t.Errorf("Copy = %+v, %v; want 3.956318317e12 B/s", k, ok)
	}
	if _, ok := res.Kernel("Nstream"); ok {
		t.Error("a Classic run has no Nstream row")
	}
	if res.ArrayBytes() != 2147483648 {
		t.Errorf("ArrayBytes = %d, want 2^31", res.ArrayBytes())
	}
}

// TestParseTruncated cuts the capture at every line boundary and inside
// every line: only the whole output parses.
func TestParseTruncated(t *testing.T) {
	full := readSample(t, sampleDouble)
	for i := range full {
		if _, err := Parse(bytes.NewReader(full[:i])); err == nil {
			t.Fatalf("Parse accepted the first %d of %d bytes", i, len(full))
		} else if !errors.Is(err, ErrFormat) {
			t.Fatalf("truncated at %d: error %v does not wrap ErrFormat", i, err)
		}
	}
}

func TestParseGarbled(t *testing.T) {
	full := string(readSample(t, sampleDouble))
	tests := []struct {
		name, old, new, msg string
	}{
		{"banner", "BabelStream\n", "BabelStreem\n", "line 1: want the banner"},
		{"version missing", "Version: 5.0\n", "", "line 2"},
		{"running line", "100 times in", "many times in", "line 4"},
		{"unknown order", "Classic order", "Random order", "line 4"},
		{"elements", "268435456", "26843545x", "line 5"},
		{"precision", "Precision: double", "Precision: half", "unknown precision"},
		{"array size mismatch", "Array size: 2147.5 MB", "Array size: 1073.7 MB", "does not match"},
		{"total size unit", "Total size: 6442.5 MB", "Total size: 6442.5 MiB", "line 8"},
		{"table unit", "MB/s   ", "MiB/s  ", "table unit"},
		{"header", "Min (sec)", "Min (s)  ", "line 14"},
		{"bandwidth digit", "3956318.317", "3956318.3l7", "Copy bandwidth"},
		{"bandwidth inf", "3956318.317", "inf        ", "Copy bandwidth"},
		{"bandwidth negative", "3956318.317", "-3956318.31", "inconsistent"},
		{"min above max", "0.00109     0.00112     0.00109", "0.00113     0.00112     0.00109", "inconsistent"},
		{"runtime garbage", "0.00096     0.00100", "0.00096     0.0O100", "Dot runtime"},
		{"rows swapped", "Mul         3937299.108", "Add         3937299.108", "want the Mul row"},
		{"extra field", "Triad       4355874.031", "Triad       4355874.031 9", "want the Triad row"},
		{"trailing line", "0.00097     \n", "0.00097     \nFAILED validation\n", "after the table"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := strings.Replace(full, tt.old, tt.new, 1)
			if in == full {
				t.Fatalf("replacement %q not found", tt.old)
			}
			res, err := Parse(strings.NewReader(in))
			if err == nil || !strings.Contains(err.Error(), tt.msg) || !errors.Is(err, ErrFormat) {
				t.Errorf("Parse = %v, %v; want an ErrFormat error containing %q", res, err, tt.msg)
			}
		})
	}
}

func TestParseSelections(t *testing.T) {
	full := string(readSample(t, sampleDouble))
	// --only Triad: the tool prints "Running " twice and one row.
	only := strings.Replace(full, "Running  Classic kernels", "Running Running Triad", 1)
	head, _, _ := strings.Cut(only, "Copy ")
	_, triad, _ := strings.Cut(only, "Triad       ")
	triad, _, _ = strings.Cut(triad, "\n")
	res, err := Parse(strings.NewReader(head + "Triad       " + triad + "\n"))
	if err != nil {
		t.Fatal(err)
	}
	if res.Selection != "Triad" || len(res.Kernels) != 1 || res.Kernels[0].Bandwidth != 4355874.031 {
		t.Errorf("--only Triad: %+v", res)
	}
	// --only All announces Nstream too, so the Classic table is short.
	all := strings.Replace(full, "Running  Classic kernels", "Running  All kernels", 1)
	if _, err := Parse(strings.NewReader(all)); err == nil || !strings.Contains(err.Error(), "kernel Nstream missing") {
		t.Errorf("All without Nstream: %v", err)
	}
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

func FuzzParse(f *testing.F) {
	f.Add(readSample(f, sampleDouble))
	f.Add(readSample(f, sampleFloat))
	f.Add([]byte("BabelStream\nVersion: 5.0\n"))
	f.Fuzz(func(t *testing.T, in []byte) {
		res, err := Parse(bytes.NewReader(in))
		if err == nil {
			checkResult(t, res)
		}
	})
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

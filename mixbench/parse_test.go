package mixbench

import (
	"bytes"
	"errors"
	"math"
	"os"
	"strings"
	"testing"
)

// sample is a real capture of `mixbench-cuda` on the project's H200 (see
// ../shared/samples/README.md).
const sample = "testdata/mixbench-cuda-h200.txt"

func readSample(t testing.TB) []byte {
	t.Helper()
	b, err := os.ReadFile(sample)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func parseSample(t *testing.T) *Result {
	t.Helper()
	res, err := Parse(bytes.NewReader(readSample(t)))
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func TestParseHeader(t *testing.T) {
	res := parseSample(t)
	want := DeviceInfo{
		Name: "NVIDIA H200", CUDADriverVersion: "13.0", GPUClockMHz: 1980, MemoryClockMHz: 1600,
		MemoryBusWidthBits: 6016, WarpSize: 32, L2CacheKiB: 61440, GlobalMemoryMiB: 143155, ECC: true,
		ComputeCapability: "9.0", TotalSPs: 16896, SMs: 132, SPsPerSM: 128,
		TheoreticalOpsPerSec: 66908.16e9, TheoreticalBytesPerSec: 4814.30e9,
	}
	if res.Device != want {
		t.Errorf("Device:\n got %+v\nwant %+v", res.Device, want)
	}
	if res.Version != "" || res.TotalMemoryBytes != 150109880320 || res.FreeMemoryBytes != 149557477376 ||
		res.BufferMiB != 256 || res.TradeOff != "compute with global memory (block strided)" ||
		res.ElementsPerThread != 8 || res.FusionDegree != 4 || !res.HalfSupported {
		t.Errorf("setup fields: %+v", res)
	}
}

func TestParseRows(t *testing.T) {
	res := parseSample(t)
	if len(res.Rows) != 35 {
		t.Fatalf("%d rows, want 35", len(res.Rows))
	}
	tests := []struct {
		row   int
		iters int
		prec  Precision
		want  Point
	}{
		// "0,      0.250,    0.06,  578.05,2312.19, ..."
		{0, 0, Single, Point{0.25, 0.06e-3, 578.05e9, 2312.19e9}},
		{0, 0, Double, Point{0.125, 0.07e-3, 459.90e9, 3679.21e9}},
		{0, 0, Half, Point{0.5, 0.04e-3, 1516.38e9, 3032.76e9}},
		{0, 0, Int, Point{0.25, 0.05e-3, 743.14e9, 2972.58e9}},
		// the row where the double-precision bandwidth peaks
		{11, 11, Double, Point{2.875, 0.07e-3, 10819.76e9, 3763.40e9}},
		// the last row, where every precision peaks
		{34, 1024, Single, Point{512.25, 1.15e-3, 59964.62e9, 117.06e9}},
		{34, 1024, Int, Point{512.25, 2.48e-3, 27714.77e9, 54.10e9}},
	}
	for _, tt := range tests {
		row := res.Rows[tt.row]
		got, ok := row.Point(tt.prec)
		if row.ComputeIters != tt.iters || !ok || got != tt.want {
			t.Errorf("row %d (%d iters) %s = %+v; want %d iters, %+v", tt.row, row.ComputeIters, tt.prec, got, tt.iters, tt.want)
		}
	}
	if _, ok := res.Rows[0].Point(Precision(7)); ok {
		t.Error("Point accepted an invalid precision")
	}
}

func TestPeaks(t *testing.T) {
	res := parseSample(t)
	tests := []struct {
		prec Precision
		want float64
	}{
		{Single, 59964.62e9}, {Double, 31269.57e9}, {Half, 95539.15e9}, {Int, 27714.77e9}, {Precision(-1), 0},
	}
	for _, tt := range tests {
		if got := res.PeakOps(tt.prec); got != tt.want {
			t.Errorf("PeakOps(%s) = %v, want %v", tt.prec, got, tt.want)
		}
	}
	if got := res.PeakBandwidth(); got != 3763.40e9 {
		t.Errorf("PeakBandwidth = %v, want 3763.40e9 (double, 11 iters)", got)
	}
}

// withoutHalf turns the sample into what the tool prints on a device
// without fp16 (derived from mix_kernels_cuda.cu, not captured): the
// warning line, and a half kernel time of 0 that printf writes as 0.00
// with throughput and bandwidth inf.
func withoutHalf(t testing.TB) string {
	lines := strings.Split(string(readSample(t)), "\n")
	var out []string
	inRows := false
	for _, line := range lines {
		switch {
		case strings.HasPrefix(line, "Compute iters,"):
			inRows = true
		case strings.HasPrefix(line, "-----") && inRows:
			inRows = false
		case inRows:
			f := strings.Split(line, ",")
			f[10], f[11], f[12] = "    0.00", "     inf", "    inf"
			line = strings.Join(f, ",")
		case strings.HasPrefix(line, "Thread fusion degree:"):
			line += "\nWarning:              Half precision computations are not supported"
		}
		out = append(out, line)
	}
	return strings.Join(out, "\n")
}

func TestParseWithoutHalf(t *testing.T) {
	res, err := Parse(strings.NewReader(withoutHalf(t)))
	if err != nil {
		t.Fatal(err)
	}
	if res.HalfSupported || res.Supported(Half) || res.PeakOps(Half) != 0 {
		t.Errorf("half should be unsupported: %v %v", res.HalfSupported, res.PeakOps(Half))
	}
	if res.PeakOps(Single) != 59964.62e9 || res.PeakBandwidth() != 3763.40e9 {
		t.Errorf("other precisions changed: %v %v", res.PeakOps(Single), res.PeakBandwidth())
	}
	// Without the warning, inf in the half columns is garbage.
	in := strings.Replace(withoutHalf(t), "\nWarning:              Half precision computations are not supported", "", 1)
	if _, err := Parse(strings.NewReader(in)); err == nil || !strings.Contains(err.Error(), "half") {
		t.Errorf("inf half columns without the warning: %v", err)
	}
}

func TestParseTruncated(t *testing.T) {
	full := readSample(t)
	for i := range full {
		if _, err := Parse(bytes.NewReader(full[:i])); err == nil {
			t.Fatalf("Parse accepted the first %d of %d bytes", i, len(full))
		} else if !errors.Is(err, ErrFormat) {
			t.Fatalf("truncated at %d: error %v does not wrap ErrFormat", i, err)
		}
	}
}

func TestParseGarbled(t *testing.T) {
	full := string(readSample(t))
	tests := []struct {
		name, old, new, msg string
	}{
		{"banner", "mixbench ()", "mixbench", "line 1: want the banner"},
		{"specs rule", "------------------------ Device specifications", "------------------------ Device specs", "line 2"},
		{"device missing", "Device:              NVIDIA H200\n", "", `lack "Device"`},
		{"clock unit", "1980 MHz", "1980 GHz", "GPU clock rate"},
		{"clock garbage", "1980 MHz", "19B0 MHz", "GPU clock rate"},
		{"ecc", "ECC enabled:         Yes", "ECC enabled:         Maybe", "ECC enabled"},
		{"total SPs product", "16896 (132 MPs", "16897 (132 MPs", "not 132 x 128"},
		{"bandwidth", "4814.30 GB/sec", "4814.30 GB/s", "Memory bandwidth"},
		{"repeated key", "WarpSize:            32\n", "WarpSize:            32\nWarpSize:            32\n", "given twice"},
		{"memory line", "free 149557477376", "free 249557477376", "bad memory line"},
		{"buffer missing", "Buffer size:          256MB\n", "", `no "Buffer size"`},
		{"stray line", "Elements per thread:  8\n", "Elements per thread:  8\nhello\n", "unexpected line"},
		{"other warning", "Thread fusion degree: 4\n", "Thread fusion degree: 4\nWarning: low memory\n", "unknown warning"},
		{"csv marker", " CSV data ", " CSV date ", "unexpected line"},
		{"csv header", "Compute iters, Flops/byte", "Compute iters, Flop/byte", "bad CSV header"},
		{"column count", "    0.250,    0.05,  743.14,2972.58", "    0.250,    0.05,  743.14", "want 17 columns"},
		{"number garbage", "  578.05,2312.19", "  578.O5,2312.19", "single"},
		{"throughput inconsistent", "  578.05,2312.19", "  678.05,2312.19", "is not the intensity"},
		{"negative", "  578.05,2312.19", " -578.05,2312.19", "not a number"},
		{"iterations order", "\n            1,", "\n            0,", "compute iterations 0 after 0"},
		{"after block", "-----\n", "-----\ntrailing\n", "after the CSV block"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var in string
			if tt.name == "after block" {
				in = strings.TrimSuffix(full, "\n") + "\ntrailing\n"
			} else {
				in = strings.Replace(full, tt.old, tt.new, 1)
			}
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

func TestParseNoRows(t *testing.T) {
	full := string(readSample(t))
	head, _, _ := strings.Cut(full, "            0,")
	in := head + strings.Repeat("-", 40) + "\n"
	if _, err := Parse(strings.NewReader(in)); err == nil || !strings.Contains(err.Error(), "no rows") {
		t.Errorf("empty CSV block: %v", err)
	}
}

func FuzzParse(f *testing.F) {
	f.Add(readSample(f))
	f.Add([]byte(withoutHalf(f)))
	f.Add([]byte("mixbench ()\n"))
	f.Fuzz(func(t *testing.T, in []byte) {
		res, err := Parse(bytes.NewReader(in))
		if err != nil {
			return
		}
		if len(res.Rows) == 0 || res.Device.Name == "" {
			t.Fatalf("accepted an incomplete result: %+v", res)
		}
		for p := Single; p <= Int; p++ {
			v := res.PeakOps(p)
			if math.IsNaN(v) || math.IsInf(v, 0) || (res.Supported(p) && v <= 0) {
				t.Fatalf("PeakOps(%s) = %v", p, v)
			}
		}
		if bw := res.PeakBandwidth(); !(bw > 0) || math.IsInf(bw, 0) {
			t.Fatalf("PeakBandwidth = %v", bw)
		}
	})
}

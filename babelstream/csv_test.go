package babelstream

import (
	"errors"
	"strings"
	"testing"
)

// The --csv samples below are HAND-WRITTEN, not captured: the project has
// no --csv capture yet. Each follows the format BabelStream's source
// prints (src/main.cpp and src/cuda/CUDAStream.cu of the main branch; the
// last one src/main.cpp of the v5.0 tag), with figures in the range of
// the H200 captures and bandwidth computed from the min runtime the way
// the tool does, printed with iostream's default 6 significant digits.
const (
	// `cuda-stream -s 268435456 --csv` (main branch).
	handCSVDouble = `CUDA Driver: 13000
CUDA Device 0: "NVIDIA H200" 132 SMs(9,0) Memory: 3201 MHz x 6016-bit = 4814.3 GB/s PEAK, ECC is ON
Memory Allocation: DEFAULT
Parallel for kernel config: thread blocks of size 256
Reduction kernel config: 528 groups of (fixed) size 1024
function,num_times,n_elements,sizeof,max_MB_per_sec,min_runtime,max_runtime,avg_runtime
Copy,100,268435456,8,3.95634e+06,0.00108559,0.00111862,0.00109233
Mul,100,268435456,8,3.93734e+06,0.00109083,0.00111981,0.00109542
Add,100,268435456,8,4.35357e+06,0.00147981,0.00150013,0.00148627
Triad,100,268435456,8,4.35595e+06,0.001479,0.00149872,0.00148455
Dot,100,268435456,8,4.48742e+06,0.000957112,0.000998821,0.000968004
`
	// `cuda-stream -s 268435456 --float --mibibytes --only Triad --device 1 --csv`.
	handCSVFloatMiB = `CUDA Driver: 13000
CUDA Device 1: "NVIDIA H200" 132 SMs(9,0) Memory: 3201 MHz x 6016-bit = 4814.3 GB/s PEAK, ECC is ON
Memory Allocation: DEFAULT
Parallel for kernel config: thread blocks of size 256
Reduction kernel config: 528 groups of (fixed) size 1024
function,num_times,n_elements,sizeof,max_MiB_per_sec,min_runtime,max_runtime,avg_runtime
Triad,100,268435456,4,3.44892e+06,0.000890714,0.000926343,0.000899621
`
	// `cuda-stream -s 268435456 --float --csv` built from the v5.0 tag.
	handCSVTag50 = `Using CUDA device NVIDIA H200
Driver: 13000
Memory: DEFAULT
Reduction kernel config: 528 groups of (fixed) size 1024
phase,n_elements,sizeof,max_mbytes_per_sec,runtime
Init,268435456,4,71266.1,0.0452
Read,268435456,4,7831.81,0.4113
function,num_times,n_elements,sizeof,max_mbytes_per_sec,min_runtime,max_runtime,avg_runtime
Copy,100,268435456,4,3.13521e+06,0.000684957,0.000712355,0.000691807
`
)

func TestParseCSV(t *testing.T) {
	const n = 268435456
	tests := []struct {
		name, in   string
		prec       Precision
		unit       Unit
		devName    string
		devIndex   int
		driver     string
		kernels    int
		first      string
		firstBps   float64 // BandwidthBytesPerSec of the first row
		firstBytes int64
		firstMin   float64
	}{
		{"double MB", handCSVDouble, Double, MB, "NVIDIA H200", 0, "13000", 5, "Copy", 3.95634e12, 2 * 8 * n, 0.00108559},
		{"float MiB only Triad", handCSVFloatMiB, Float, MiB, "NVIDIA H200", 1, "13000", 1, "Triad", 3.44892 * (1 << 20) * 1e6, 3 * 4 * n, 0.000890714},
		{"v5.0 tag", handCSVTag50, Float, MB, "NVIDIA H200", -1, "13000", 1, "Copy", 3.13521e12, 2 * 4 * n, 0.000684957},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := ParseCSV(strings.NewReader(tt.in))
			if err != nil {
				t.Fatal(err)
			}
			if res.Precision != tt.prec || res.Unit != tt.unit || res.Elements != n || res.NumTimes != 100 ||
				res.DeviceName != tt.devName || res.DeviceIndex != tt.devIndex || res.Driver != tt.driver ||
				res.Implementation != "CUDA" || len(res.Kernels) != tt.kernels {
				t.Errorf("ParseCSV header fields: %+v", res)
			}
			k := res.Kernels[0]
			if k.Name != tt.first || k.BandwidthBytesPerSec != tt.firstBps || k.BytesMoved != tt.firstBytes || k.MinSeconds != tt.firstMin {
				t.Errorf("first row %+v; want %s at %v B/s, %d bytes, min %v s", k, tt.first, tt.firstBps, tt.firstBytes, tt.firstMin)
			}
		})
	}
}

func TestParseCSVDotRow(t *testing.T) {
	res, err := ParseCSV(strings.NewReader(handCSVDouble))
	if err != nil {
		t.Fatal(err)
	}
	dot, ok := res.Kernel("Dot")
	want := Kernel{"Dot", 4.48742e6, 4.48742e12, 2 * 8 * 268435456, 0.000957112, 0.000998821, 0.000968004}
	if !ok || dot != want {
		t.Errorf("Dot = %+v, want %+v", dot, want)
	}
	if len(res.Details) != 3 {
		t.Errorf("Details = %q, want the three configuration lines", res.Details)
	}
}

func TestParseCSVTruncated(t *testing.T) {
	for i := range len(handCSVDouble) {
		in := handCSVDouble[:i]
		res, err := ParseCSV(strings.NewReader(in))
		// A cut exactly after a complete row cannot be detected (the
		// format has no trailer); it must then hold exactly those rows.
		if err == nil {
			rows := strings.Count(in[strings.Index(in, "function,"):], "\n") - 1
			if !strings.HasSuffix(in, "\n") || rows < 1 || len(res.Kernels) != rows {
				t.Fatalf("ParseCSV accepted %q as %d kernels", in, len(res.Kernels))
			}
			continue
		}
		if !errors.Is(err, ErrFormat) {
			t.Fatalf("cut at %d: error %v does not wrap ErrFormat", i, err)
		}
	}
}

func TestParseCSVGarbled(t *testing.T) {
	tests := []struct {
		name, old, new, msg string
	}{
		{"no header", "function,", "fnction,", "no CSV table header"},
		{"unknown unit", "max_MB_per_sec", "max_KB_per_sec", "unknown unit"},
		{"header column", "min_runtime,max_runtime", "max_runtime,min_runtime", "bad CSV header"},
		{"seven fields", "Mul,100,268435456,8,3.93734e+06,", "Mul,100,268435456,8,", "want 8 fields"},
		{"elements differ", "Add,100,268435456", "Add,100,268435457", "disagrees"},
		{"sizeof differs", "Add,100,268435456,8", "Add,100,268435456,4", "disagrees"},
		{"bad sizeof", "Copy,100,268435456,8", "Copy,100,268435456,2", "sizeof 2"},
		{"num_times 1", "Copy,100,", "Copy,1,", "bad num_times"},
		{"bandwidth off", "3.95634e+06", "3.95734e+06", "does not match"},
		{"bandwidth nan", "3.95634e+06", "nan", "Copy bandwidth"},
		{"runtime garbage", "0.00111862", "0.0011186z", "Copy runtime"},
		{"repeated kernel", "Mul,100", "Copy,100", "out of order or repeated"},
		{"unknown kernel", "Dot,100", "Dott,100", "unknown kernel"},
		{"row after blank", "Dot,100", "\nDot,100", "want 8 fields"},
		{"min above avg", "0.00108559,0.00111862,0.00109233", "0.00109559,0.00111862,0.00109233", "inconsistent"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := strings.Replace(handCSVDouble, tt.old, tt.new, 1)
			if in == handCSVDouble {
				t.Fatalf("replacement %q not found", tt.old)
			}
			res, err := ParseCSV(strings.NewReader(in))
			if err == nil || !strings.Contains(err.Error(), tt.msg) || !errors.Is(err, ErrFormat) {
				t.Errorf("ParseCSV = %+v, %v; want an ErrFormat error containing %q", res, err, tt.msg)
			}
		})
	}
}

func TestParseCSVRejectsHumanFormat(t *testing.T) {
	if _, err := ParseCSV(strings.NewReader(string(readSample(t, sampleDouble)))); err == nil {
		t.Error("ParseCSV accepted the human format")
	}
}

func TestParseCSVPhaseTable(t *testing.T) {
	tests := []struct{ name, old, new string }{
		{"phase row missing", "Read,268435456,4,7831.81,0.4113\n", ""},
		{"phase number", "71266.1", "71266.x"},
		{"phase row name", "Init,", "Inti,"},
	}
	for _, tt := range tests {
		in := strings.Replace(handCSVTag50, tt.old, tt.new, 1)
		if _, err := ParseCSV(strings.NewReader(in)); err == nil {
			t.Errorf("%s: ParseCSV accepted it", tt.name)
		}
	}
}

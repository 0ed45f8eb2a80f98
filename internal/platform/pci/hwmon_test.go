package pci

import (
	"errors"
	"io/fs"
	"maps"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/everycycle/appraise/internal/platform/thermal"
)

// rx7900HWMon is the amdgpu hwmon directory of an RX 7900-class card under
// load: edge, junction and memory temperatures (m°C), average power (µW)
// and shader and memory clocks (Hz), in amdgpu's file names.
var rx7900HWMon = map[string]string{
	"name":        "amdgpu",
	"temp1_input": "61000", "temp1_label": "edge",
	"temp2_input": "78000", "temp2_label": "junction",
	"temp3_input": "70000", "temp3_label": "mem",
	"power1_average": "312000000", "power1_cap": "355000000",
	"freq1_input": "2482000000", "freq1_label": "sclk",
	"freq2_input": "1249000000", "freq2_label": "mclk",
}

// withHWMon writes files into <dev>/hwmon/<name> of a fake tree.
func withHWMon(t *testing.T, root string, bdf BDF, name string, files map[string]string) string {
	t.Helper()
	dir := filepath.Join(devPath(root, bdf), "hwmon", name)
	mkdir(t, dir)
	for f, content := range files {
		write(t, filepath.Join(dir, f), content+"\n")
	}
	return dir
}

// only returns the entries of m whose keys start with one of prefixes.
func only(m map[string]string, prefixes ...string) map[string]string {
	out := map[string]string{}
	for k, v := range m {
		for _, p := range prefixes {
			if strings.HasPrefix(k, p) {
				out[k] = v
			}
		}
	}
	return out
}

func TestHWMonRX7900(t *testing.T) {
	root := buildTree(t, rx7900("0000:03:00.0"))
	dir := withHWMon(t, root, rx7900BDF, "hwmon4", rx7900HWMon)
	s, err := HWMon(root, rx7900BDF)
	if err != nil {
		t.Fatal(err)
	}
	if s.Dir != dir || s.Name != "amdgpu" || s.TemperatureLabel != "junction" {
		t.Errorf("Sensors = %+v, want dir %s, name amdgpu, junction", s, dir)
	}
	got, err := s.Sample()
	if err != nil {
		t.Fatal(err)
	}
	if got.TemperatureC != 78 || got.PowerW != 312 || got.SMClockMHz != 2482 || got.MemClockMHz != 1249 {
		t.Errorf("Sample = %+v, want 78 °C, 312 W, 2482/1249 MHz", got)
	}
	if got.ThrottleNames != nil || got.At.IsZero() {
		t.Errorf("Sample = %+v, want no throttle names and a time", got)
	}
	if want := map[string]string{thermal.FieldThrottleReasons: noThrottleReasons}; !maps.Equal(got.Missing, want) {
		t.Errorf("Missing = %v, want %v", got.Missing, want)
	}
}

func TestHWMonChannelChoice(t *testing.T) {
	tests := []struct {
		name   string
		files  map[string]string
		label  string
		tempC  float64
		powerW float64
		sclk   uint32
	}{
		{"edge only", only(rx7900HWMon, "temp1", "power1_average", "freq1"), "edge", 61, 312, 2482},
		{"hotspot beats edge", map[string]string{
			"temp1_input": "50000", "temp1_label": "edge", "temp2_input": "66500", "temp2_label": "hotspot",
			"power1_input": "150500000",
		}, "hotspot", 66.5, 150.5, 0},
		{"unlabelled channels", map[string]string{
			"temp2_input": "40000", "temp1_input": "-5000", "freq1_input": "1000400000",
		}, "temp1", -5, math.NaN(), 1000},
		{"average beats input", map[string]string{
			"power1_average": "100000000", "power1_input": "200000000",
		}, "", math.NaN(), 100, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := buildTree(t, rx7900("0000:03:00.0"))
			withHWMon(t, root, rx7900BDF, "hwmon0", tt.files)
			s, err := HWMon(root, rx7900BDF)
			if err != nil {
				t.Fatal(err)
			}
			got, err := s.Sample()
			if err != nil {
				t.Fatal(err)
			}
			if s.TemperatureLabel != tt.label || !same(got.TemperatureC, tt.tempC) || !same(got.PowerW, tt.powerW) || got.SMClockMHz != tt.sclk {
				t.Errorf("label %q, sample %+v; want %q, %v °C, %v W, %d MHz", s.TemperatureLabel, got, tt.label, tt.tempC, tt.powerW, tt.sclk)
			}
			checkMissing(t, got)
		})
	}
}

// same compares floats, NaN equal to NaN.
func same(a, b float64) bool { return a == b || math.IsNaN(a) && math.IsNaN(b) }

// checkMissing asserts that Missing names exactly the fields left unset.
func checkMissing(t *testing.T, s thermal.Sample) {
	t.Helper()
	unset := map[string]bool{
		thermal.FieldTemperatureC: math.IsNaN(s.TemperatureC), thermal.FieldPowerW: math.IsNaN(s.PowerW),
		thermal.FieldSMClockMHz: s.SMClockMHz == 0, thermal.FieldMemClockMHz: s.MemClockMHz == 0, thermal.FieldThrottleReasons: true,
	}
	for k, want := range unset {
		if _, got := s.Missing[k]; got != want {
			t.Errorf("Missing[%s] present = %v, want %v (Missing %v)", k, got, want, s.Missing)
		}
	}
}

func TestHWMonLowestNumbered(t *testing.T) {
	root := buildTree(t, rx7900("0000:03:00.0"))
	withHWMon(t, root, rx7900BDF, "hwmon10", map[string]string{"name": "other"})
	want := withHWMon(t, root, rx7900BDF, "hwmon2", rx7900HWMon)
	s, err := HWMon(root, rx7900BDF)
	if err != nil {
		t.Fatal(err)
	}
	if s.Dir != want {
		t.Errorf("Dir = %s, want %s", s.Dir, want)
	}
}

func TestHWMonUnreadable(t *testing.T) {
	files := maps.Clone(rx7900HWMon)
	files["temp2_input"] = "hot"
	root := buildTree(t, rx7900("0000:03:00.0"))
	dir := withHWMon(t, root, rx7900BDF, "hwmon1", files)
	s, err := HWMon(root, rx7900BDF)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(dir, "power1_average")); err != nil {
		t.Fatal(err)
	}
	got, err := s.Sample()
	if err != nil {
		t.Fatal(err)
	}
	if !math.IsNaN(got.TemperatureC) || !math.IsNaN(got.PowerW) || got.SMClockMHz != 2482 {
		t.Errorf("Sample = %+v, want NaN temperature and power", got)
	}
	checkMissing(t, got)
	if r := got.Missing[thermal.FieldTemperatureC]; !strings.Contains(r, "temp2_input") {
		t.Errorf("temperature reason %q does not name temp2_input", r)
	}
}

func TestHWMonGone(t *testing.T) {
	root := buildTree(t, rx7900("0000:03:00.0"))
	dir := withHWMon(t, root, rx7900BDF, "hwmon1", rx7900HWMon)
	s, err := HWMon(root, rx7900BDF)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Sample(); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Sample after removal: error = %v, want fs.ErrNotExist", err)
	}
}

func TestHWMonNone(t *testing.T) {
	root := buildTree(t, h200Devices()...)
	if _, err := HWMon(root, BDF{Device: 6}); !errors.Is(err, ErrNoHWMon) {
		t.Errorf("HWMon(H200) error = %v, want ErrNoHWMon", err)
	}
	if _, err := HWMon(root, BDF{Device: 9}); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("HWMon(absent device) error = %v, want fs.ErrNotExist", err)
	}
}

func TestHWMonPowerLimit(t *testing.T) {
	root := buildTree(t, rx7900("0000:03:00.0"))
	withHWMon(t, root, rx7900BDF, "hwmon4", rx7900HWMon)
	s, err := HWMon(root, rx7900BDF)
	if err != nil {
		t.Fatal(err)
	}
	if w, err := s.PowerLimitW(); err != nil || w != 355 {
		t.Errorf("PowerLimitW = %v, %v; want 355 W", w, err)
	}
	if err := os.Remove(filepath.Join(s.Dir, "power1_cap")); err != nil {
		t.Fatal(err)
	}
	if _, err := s.PowerLimitW(); err == nil || !strings.Contains(err.Error(), "power1_cap") {
		t.Errorf("no power1_cap: err = %v; want one naming power1_cap", err)
	}
}

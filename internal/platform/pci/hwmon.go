package pci

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/everycycle/appraise/internal/platform/thermal"
)

// ErrNoHWMon is returned by HWMon for a device whose driver registers no hwmon
// sensors.
var ErrNoHWMon = errors.New("no hwmon sensors registered for the device")

const noThrottleReasons = "hwmon has no throttle-reason bitmask (the thermal rule relies on the throughput drop)"

// Sensors reads one device's hwmon channels, chosen once by HWMon.
type Sensors struct {
	Dir              string // <dev>/hwmon/hwmonN
	Name             string // the chip name ("amdgpu"); "" when absent
	TemperatureLabel string // the channel's temp*_label, or "tempN"; "" when there is none

	temp, power, sclk, mclk string // input file names, "" when absent
}

// HWMon opens the lowest-numbered hwmon directory of the device at bdf below
// root ("" is the running system) and chooses its channels: temperature
// labelled "junction" or "hotspot", else "edge", else the lowest temp*_input;
// power1_average, else power1_input; freq*_input labelled "sclk" (or an
// unlabelled freq1) and "mclk". ErrNoHWMon means there is no hwmon directory;
// missing channels are not an error.
func HWMon(root string, bdf BDF) (*Sensors, error) {
	dir, err := deviceDir(root, bdf)
	if err != nil {
		return nil, fmt.Errorf("pci: hwmon: %w", err)
	}
	hw, err := firstHWMon(dir)
	if err != nil {
		return nil, fmt.Errorf("pci: hwmon: %s: %w", bdf, err)
	}
	s := &Sensors{Dir: hw, Name: readLabel(hw, "name")}
	s.temp, s.TemperatureLabel = chooseTemperature(hw)
	for _, f := range []string{"power1_average", "power1_input"} {
		if fileExists(filepath.Join(hw, f)) {
			s.power = f
			break
		}
	}
	s.sclk, s.mclk = chooseClocks(hw)
	return s, nil
}

// Sample reads each chosen channel once. One absent or unreadable is NaN or 0
// and listed in Missing, which always holds FieldThrottleReasons (hwmon has no
// throttle reasons). The error is non-nil only when the directory is gone.
func (s *Sensors) Sample() (thermal.Sample, error) {
	out := thermal.Sample{At: time.Now(), TemperatureC: math.NaN(), PowerW: math.NaN()}
	if _, err := os.Stat(s.Dir); err != nil {
		return out, fmt.Errorf("pci: hwmon: %w", err)
	}
	a := attrs{dir: s.Dir}
	if v, ok := s.read(&a, thermal.FieldTemperatureC, s.temp, "temperature"); ok {
		out.TemperatureC = float64(v) / 1e3
	}
	if v, ok := s.read(&a, thermal.FieldPowerW, s.power, "power"); ok {
		out.PowerW = float64(v) / 1e6
	}
	if v, ok := s.read(&a, thermal.FieldSMClockMHz, s.sclk, "shader clock"); ok {
		out.SMClockMHz = hzToMHz(v)
	}
	if v, ok := s.read(&a, thermal.FieldMemClockMHz, s.mclk, "memory clock"); ok {
		out.MemClockMHz = hzToMHz(v)
	}
	a.note(thermal.FieldThrottleReasons, noThrottleReasons)
	out.Missing = a.missing
	return out, nil
}

// read reads one channel, noting under key why it is missing. Only a
// temperature may be negative.
func (s *Sensors) read(a *attrs, key, file, what string) (int64, bool) {
	if file == "" {
		a.note(key, fmt.Sprintf("%s exposes no %s channel", filepath.Base(s.Dir), what))
		return 0, false
	}
	v, ok := a.int(key, file)
	if ok && v < 0 && key != thermal.FieldTemperatureC {
		a.note(key, fmt.Sprintf("%s reads %d", file, v))
		return 0, false
	}
	return v, ok
}

func hzToMHz(hz int64) uint32 {
	return uint32(min((hz+500_000)/1_000_000, math.MaxUint32))
}

func firstHWMon(dev string) (string, error) {
	n := channels(filepath.Join(dev, "hwmon"), "hwmon", "")
	if len(n) == 0 {
		return "", ErrNoHWMon
	}
	return filepath.Join(dev, "hwmon", fmt.Sprintf("hwmon%d", n[0])), nil
}

func chooseTemperature(hw string) (file, label string) {
	nums := channels(hw, "temp", "_input")
	if len(nums) == 0 {
		return "", ""
	}
	labels := make([]string, len(nums))
	for i, n := range nums {
		labels[i] = strings.ToLower(readLabel(hw, fmt.Sprintf("temp%d_label", n)))
	}
	pick := 0
	for _, want := range [][]string{{"junction", "hotspot"}, {"edge"}} {
		if i := slices.IndexFunc(labels, func(l string) bool { return slices.Contains(want, l) }); i >= 0 {
			pick = i
			break
		}
	}
	if labels[pick] == "" {
		labels[pick] = fmt.Sprintf("temp%d", nums[pick])
	}
	return fmt.Sprintf("temp%d_input", nums[pick]), labels[pick]
}

func chooseClocks(hw string) (sclk, mclk string) {
	for _, n := range channels(hw, "freq", "_input") {
		file := fmt.Sprintf("freq%d_input", n)
		switch l := strings.ToLower(readLabel(hw, fmt.Sprintf("freq%d_label", n))); {
		case l == "sclk" || (l == "" && n == 1):
			sclk = cmp.Or(sclk, file)
		case l == "mclk":
			mclk = cmp.Or(mclk, file)
		}
	}
	return sclk, mclk
}

// channels returns the numbers N of the entries <prefix>N<suffix> in dir,
// ascending.
func channels(dir, prefix, suffix string) []int {
	entries, _ := os.ReadDir(dir)
	var nums []int
	for _, e := range entries {
		num, okP := strings.CutPrefix(e.Name(), prefix)
		num, okS := strings.CutSuffix(num, suffix)
		if !okP || !okS {
			continue
		}
		if n, err := strconv.ParseUint(num, 10, 16); err == nil {
			nums = append(nums, int(n))
		}
	}
	slices.Sort(nums)
	return nums
}

func readLabel(dir, name string) string {
	b, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}

func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// PowerLimitW is the board power cap the driver enforces (power1_cap), in
// watts; the error says why there is none.
func (s *Sensors) PowerLimitW() (float64, error) {
	a := attrs{dir: s.Dir}
	v, ok := a.int("power_cap", "power1_cap")
	switch {
	case !ok:
		return 0, fmt.Errorf("pci: hwmon: %s: no power cap: %s", s.Dir, a.missing["power_cap"])
	case v <= 0:
		return 0, fmt.Errorf("pci: hwmon: %s: power1_cap reads %d", s.Dir, v)
	}
	return float64(v) / 1e6, nil
}

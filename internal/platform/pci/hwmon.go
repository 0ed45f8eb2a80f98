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

// ErrNoHWMon says the device has no hwmon directory: its driver registers
// no sensors (NVIDIA's proprietary driver, an unbound device). Telemetry
// then comes from the vendor's library or not at all.
var ErrNoHWMon = errors.New("no hwmon sensors registered for the device")

// noThrottleReasons is the Missing reason for thermal.FieldThrottleReasons.
const noThrottleReasons = "hwmon has no throttle-reason bitmask (the thermal rule relies on the throughput drop)"

// Sensors reads one device's hwmon channels. HWMon chooses the channels
// once; Sample reads their current values.
type Sensors struct {
	// Dir is the hwmon directory read, e.g. <dev>/hwmon/hwmon3.
	Dir string
	// Name is the hwmon chip name ("amdgpu"); "" when the file is absent.
	Name string
	// TemperatureLabel names the temperature channel Sample reads: its
	// temp*_label ("junction", "edge", …), or the channel ("temp1") when it
	// has no label; "" when the device has no temperature channel.
	TemperatureLabel string

	temp, power, sclk, mclk string // input file names, "" when absent
}

// HWMon finds the hwmon directory of the device at bdf below root ("" is
// the running system), <dev>/hwmon/hwmon*, taking the lowest-numbered when
// there are several, and chooses its channels:
//
//   - temperature: the channel whose temp*_label is "junction" (amdgpu's
//     name) or "hotspot", else "edge", else the lowest-numbered
//     temp*_input (temp1 where it exists). Junction is preferred because it is the hottest point
//     on the die and the one amdgpu's firmware throttles against, so a
//     temperature reading lines up with the throttling it explains; it
//     runs 10-20 °C above edge under load, and Sensors.TemperatureLabel
//     records which channel was read. (Instinct MI300 parts have no edge
//     channel at all.)
//   - power: power1_average (averaged by the firmware, like NVML's
//     reading), else power1_input (amdgpu's name on newer SMUs).
//   - clocks: freq*_input labelled "sclk" (shader clock) and "mclk"
//     (memory clock); an unlabelled freq1_input counts as the shader clock.
//
// ErrNoHWMon means the device has no hwmon directory. A directory with
// none of these channels is not an error: its samples list every field in
// Missing.
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

// Sample reads temperature (the channel HWMon chose), power and clocks
// once. Channels the device lacks or that fail to read are NaN or 0 and
// listed in Missing, which always holds FieldThrottleReasons: hwmon has
// no throttle-reason bitmask (amdgpu reports throttling only inside the
// binary gpu_metrics table), so a thermal rule relies on the drop in
// throughput. The error
// is non-nil only when the hwmon directory itself is gone (driver unbound,
// device removed), which must end a soak.
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

// read reads one chosen channel, noting under key why it is missing. Only
// a temperature may be negative.
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

// hzToMHz converts hertz to whole megahertz, rounding to nearest.
func hzToMHz(hz int64) uint32 {
	return uint32(min((hz+500_000)/1_000_000, math.MaxUint32))
}

// firstHWMon returns the lowest-numbered <dev>/hwmon/hwmonN directory.
func firstHWMon(dev string) (string, error) {
	n := channels(filepath.Join(dev, "hwmon"), "hwmon", "")
	if len(n) == 0 {
		return "", ErrNoHWMon
	}
	return filepath.Join(dev, "hwmon", fmt.Sprintf("hwmon%d", n[0])), nil
}

// chooseTemperature picks the temperature channel as HWMon documents and
// returns its input file and label.
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

// chooseClocks picks the shader and memory clock inputs by label.
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
// ascending; none when dir cannot be read.
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

// readLabel returns the trimmed content of a small file, "" when it cannot
// be read.
func readLabel(dir, name string) string {
	b, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}

// fileExists reports whether path exists.
func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// PowerLimitW is the board power cap the driver enforces, in watts
// (power1_cap, microwatts; amdgpu's PPT limit), read from the hwmon
// directory. The error says why there is none.
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

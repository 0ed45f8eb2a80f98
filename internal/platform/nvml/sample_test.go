package nvml

import (
	"errors"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	gonvml "github.com/NVIDIA/go-nvml/pkg/nvml"
	"github.com/NVIDIA/go-nvml/pkg/nvml/mock"

	"github.com/everycycle/appraise/internal/platform/thermal"
)

func TestThrottleNames(t *testing.T) {
	cases := []struct {
		mask uint64
		want []string
	}{
		{0, nil},
		{0x1, []string{"gpu_idle"}},
		{0x2, []string{"applications_clocks_setting"}},
		{0x4, []string{"sw_power_cap"}},
		{0x8, []string{"hw_slowdown"}},
		{0x10, []string{"sync_boost"}},
		{0x20, []string{"sw_thermal_slowdown"}},
		{0x40, []string{"hw_thermal_slowdown"}},
		{0x80, []string{"hw_power_brake_slowdown"}},
		{0x100, []string{"display_clock_setting"}},
		{0x200, []string{"board_limit"}},
		{0x400, []string{"reliability"}},
		{0x24, []string{"sw_power_cap", "sw_thermal_slowdown"}},
		{0x4c, []string{"sw_power_cap", "hw_slowdown", "hw_thermal_slowdown"}},
		{0x800, []string{"bit_11"}},
		{1<<63 | 0x1, []string{"gpu_idle", "bit_63"}},
		{gonvml.ClocksEventReasonAll, []string{
			"gpu_idle", "applications_clocks_setting", "sw_power_cap", "hw_slowdown",
			"sync_boost", "sw_thermal_slowdown", "hw_thermal_slowdown",
			"hw_power_brake_slowdown", "display_clock_setting", "board_limit", "reliability",
		}},
	}
	for _, c := range cases {
		if got := ThrottleNames(c.mask); !slices.Equal(got, c.want) {
			t.Errorf("ThrottleNames(%#x) = %q; want %q", c.mask, got, c.want)
		}
	}
}

// TestReasonBits pins our names to go-nvml's constants and NVML's values.
func TestReasonBits(t *testing.T) {
	pairs := []struct{ ours, nvml uint64 }{
		{ReasonGPUIdle, 0x1}, {ReasonApplicationsClocks, 0x2}, {ReasonSWPowerCap, 0x4},
		{ReasonHWSlowdown, 0x8}, {ReasonSyncBoost, 0x10}, {ReasonSWThermalSlowdown, 0x20},
		{ReasonHWThermalSlowdown, 0x40}, {ReasonHWPowerBrakeSlowdown, 0x80},
		{ReasonDisplayClockSetting, 0x100}, {ReasonBoardLimit, 0x200}, {ReasonReliability, 0x400},
	}
	var all uint64
	for _, p := range pairs {
		if p.ours != p.nvml {
			t.Errorf("reason bit %#x; NVML's is %#x", p.ours, p.nvml)
		}
		all |= p.ours
	}
	if all != gonvml.ClocksEventReasonAll {
		t.Errorf("known bits %#x; NVML's all-reasons mask is %#x", all, gonvml.ClocksEventReasonAll)
	}
}

func TestSample(t *testing.T) {
	d := openFake(t, fakeAPI(fakeH200()))
	before := time.Now()
	s, err := d.Sample()
	if err != nil {
		t.Fatal(err)
	}
	if s.At.Before(before) || s.At.After(time.Now()) {
		t.Errorf("At = %v; not during the call", s.At)
	}
	if s.TemperatureC != 41 || s.PowerW != 123.456 || s.SMClockMHz != 1980 || s.MemClockMHz != 3201 {
		t.Errorf("Sample() = %+v", s)
	}
	if s.ThrottleReasons != 0x24 || !slices.Equal(s.ThrottleNames, []string{"sw_power_cap", "sw_thermal_slowdown"}) {
		t.Errorf("throttle = %#x %q", s.ThrottleReasons, s.ThrottleNames)
	}
	if s.Missing != nil {
		t.Errorf("Missing = %v; want nil", s.Missing)
	}
}

func TestSampleBestEffort(t *testing.T) {
	dev := fakeH200()
	dev.GetPowerUsageFunc = func() (uint32, gonvml.Return) { return 0, gonvml.ERROR_NOT_SUPPORTED }
	dev.GetTemperatureFunc = func(gonvml.TemperatureSensors) (uint32, gonvml.Return) { return 0, gonvml.ERROR_NOT_SUPPORTED }
	dev.GetCurrentClocksEventReasonsFunc = func() (uint64, gonvml.Return) { return 0xff, gonvml.ERROR_UNKNOWN }
	s, err := openFake(t, fakeAPI(dev)).Sample()
	if err != nil {
		t.Fatalf("unsupported fields failed the whole sample: %v", err)
	}
	if !math.IsNaN(s.PowerW) || !math.IsNaN(s.TemperatureC) {
		t.Errorf("missing power/temperature = %v/%v; want NaN", s.PowerW, s.TemperatureC)
	}
	if s.ThrottleReasons != 0 || s.ThrottleNames != nil || s.SMClockMHz != 1980 {
		t.Errorf("Sample() = %+v", s)
	}
	for _, k := range []string{thermal.FieldPowerW, thermal.FieldTemperatureC, thermal.FieldThrottleReasons} {
		if s.Missing[k] == "" {
			t.Errorf("Missing[%q] empty; Missing = %v", k, s.Missing)
		}
	}
	if len(s.Missing) != 3 {
		t.Errorf("Missing = %v; want 3 entries", s.Missing)
	}
}

func TestSampleGPULost(t *testing.T) {
	dev := fakeH200()
	dev.GetClockInfoFunc = func(gonvml.ClockType) (uint32, gonvml.Return) { return 0, gonvml.ERROR_GPU_IS_LOST }
	if _, err := openFake(t, fakeAPI(dev)).Sample(); !errors.Is(err, ErrGPULost) {
		t.Errorf("Sample() error = %v; want ErrGPULost", err)
	}
}

// TestSampleOldDriver: a driver without the clocks-event call is read
// through the throttle-reasons call; one without either is never called.
func TestSampleOldDriver(t *testing.T) {
	dev := fakeH200()
	dev.GetCurrentClocksEventReasonsFunc = nil // the mock panics if it is called
	dev.GetCurrentClocksThrottleReasonsFunc = func() (uint64, gonvml.Return) { return ReasonHWSlowdown, gonvml.SUCCESS }
	lacking := func(missing ...string) *mock.Interface {
		a := fakeAPI(dev)
		a.ExtensionsFunc = func() gonvml.ExtendedInterface {
			return &mock.ExtendedInterface{LookupSymbolFunc: func(name string) error {
				if slices.Contains(missing, name) {
					return errors.New("undefined symbol")
				}
				return nil
			}}
		}
		return a
	}
	s, err := openFake(t, lacking("nvmlDeviceGetCurrentClocksEventReasons")).Sample()
	if err != nil || !slices.Equal(s.ThrottleNames, []string{"hw_slowdown"}) {
		t.Errorf("throttle-reasons fallback: %+v, %v", s, err)
	}

	dev.GetTemperatureFunc = nil
	dev.GetCurrentClocksThrottleReasonsFunc = nil
	s, err = openFake(t, lacking("nvmlDeviceGetCurrentClocksEventReasons",
		"nvmlDeviceGetCurrentClocksThrottleReasons",
		"nvmlDeviceGetTemperature", "nvmlDeviceGetTemperatureV")).Sample()
	if err != nil {
		t.Fatal(err)
	}
	if !math.IsNaN(s.TemperatureC) || s.Missing[thermal.FieldTemperatureC] == "" || s.Missing[thermal.FieldThrottleReasons] == "" {
		t.Errorf("no symbols: %+v", s)
	}
}

func TestPowerLimit(t *testing.T) {
	dev := fakeH200()
	w, err := openFake(t, fakeAPI(dev)).PowerLimitW()
	if err != nil || w != 700 {
		t.Fatalf("PowerLimitW = %v, %v; want 700 W", w, err)
	}
	dev.GetEnforcedPowerLimitFunc = func() (uint32, gonvml.Return) { return 0, gonvml.ERROR_NOT_SUPPORTED }
	if _, err := openFake(t, fakeAPI(dev)).PowerLimitW(); err == nil || !strings.Contains(err.Error(), "nvmlDeviceGetEnforcedPowerLimit") {
		t.Fatalf("unsupported limit: err = %v; want one naming nvmlDeviceGetEnforcedPowerLimit", err)
	}
}

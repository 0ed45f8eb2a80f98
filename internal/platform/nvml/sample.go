package nvml

import (
	"fmt"
	"math"
	"math/bits"
	"time"

	gonvml "github.com/NVIDIA/go-nvml/pkg/nvml"

	"github.com/everycycle/appraise/internal/platform/thermal"
)

// Bits of NVML's clocks-event (formerly throttle) reason mask; several may be set.
const (
	ReasonGPUIdle              uint64 = gonvml.ClocksEventReasonGpuIdle
	ReasonApplicationsClocks   uint64 = gonvml.ClocksEventReasonApplicationsClocksSetting
	ReasonSWPowerCap           uint64 = gonvml.ClocksEventReasonSwPowerCap
	ReasonHWSlowdown           uint64 = gonvml.ClocksThrottleReasonHwSlowdown
	ReasonSyncBoost            uint64 = gonvml.ClocksEventReasonSyncBoost
	ReasonSWThermalSlowdown    uint64 = gonvml.ClocksEventReasonSwThermalSlowdown
	ReasonHWThermalSlowdown    uint64 = gonvml.ClocksThrottleReasonHwThermalSlowdown
	ReasonHWPowerBrakeSlowdown uint64 = gonvml.ClocksThrottleReasonHwPowerBrakeSlowdown
	ReasonDisplayClockSetting  uint64 = gonvml.ClocksEventReasonDisplayClockSetting
	ReasonBoardLimit           uint64 = gonvml.ClocksEventReasonBoardLimit
	ReasonReliability          uint64 = gonvml.ClocksEventReasonReliability
)

// reasonNames names each known bit, in bit order.
var reasonNames = [...]struct {
	bit  uint64
	name string
}{
	{ReasonGPUIdle, "gpu_idle"},
	{ReasonApplicationsClocks, "applications_clocks_setting"},
	{ReasonSWPowerCap, "sw_power_cap"},
	{ReasonHWSlowdown, "hw_slowdown"},
	{ReasonSyncBoost, "sync_boost"},
	{ReasonSWThermalSlowdown, "sw_thermal_slowdown"},
	{ReasonHWThermalSlowdown, "hw_thermal_slowdown"},
	{ReasonHWPowerBrakeSlowdown, "hw_power_brake_slowdown"},
	{ReasonDisplayClockSetting, "display_clock_setting"},
	{ReasonBoardLimit, "board_limit"},
	{ReasonReliability, "reliability"},
}

// ThrottleNames decodes a reason mask into snake_case names in bit order,
// e.g. 0x24 → ["sw_power_cap", "sw_thermal_slowdown"]. An unknown bit N
// becomes "bit_N"; a zero mask gives nil.
func ThrottleNames(mask uint64) []string {
	var names []string
	for _, r := range reasonNames {
		if mask&r.bit != 0 {
			names = append(names, r.name)
			mask &^= r.bit
		}
	}
	for mask != 0 {
		i := bits.TrailingZeros64(mask)
		names = append(names, fmt.Sprintf("bit_%d", i))
		mask &^= 1 << i
	}
	return names
}

// Sample reads temperature, power (averaged by the driver over about a
// second), clocks and throttle reasons once; a field NVML cannot give is NaN
// or 0 and listed in Missing. An error means the device or library failed.
func (d *Device) Sample() (thermal.Sample, error) {
	s := thermal.Sample{At: time.Now(), TemperatureC: math.NaN(), PowerW: math.NaN()}
	err := d.lib.use(func() error {
		var f fields
		if t, r, op := d.temperature(); f.ok(thermal.FieldTemperatureC, op, r) {
			s.TemperatureC = t
		}
		if mw, r := d.dev.GetPowerUsage(); f.ok(thermal.FieldPowerW, "nvmlDeviceGetPowerUsage", r) {
			s.PowerW = float64(mw) / 1000
		}
		if c, r := d.dev.GetClockInfo(gonvml.CLOCK_SM); f.ok(thermal.FieldSMClockMHz, "nvmlDeviceGetClockInfo(SM)", r) {
			s.SMClockMHz = c
		}
		if c, r := d.dev.GetClockInfo(gonvml.CLOCK_MEM); f.ok(thermal.FieldMemClockMHz, "nvmlDeviceGetClockInfo(MEM)", r) {
			s.MemClockMHz = c
		}
		if m, r, op := d.reasons(); f.ok(thermal.FieldThrottleReasons, op, r) {
			s.ThrottleReasons, s.ThrottleNames = m, ThrottleNames(m)
		}
		s.Missing = f.missing
		return f.err
	})
	return s, err
}

// temperature reads the core temperature, °C, preferring the older call.
func (d *Device) temperature() (float64, gonvml.Return, string) {
	switch {
	case d.lib.syms.temperature:
		t, r := d.dev.GetTemperature(gonvml.TEMPERATURE_GPU)
		return float64(t), r, "nvmlDeviceGetTemperature"
	case d.lib.syms.temperatureV:
		t, r := d.dev.GetTemperatureV().V1() // sensor type 0: TEMPERATURE_GPU
		return float64(t.Temperature), r, "nvmlDeviceGetTemperatureV"
	}
	return math.NaN(), gonvml.ERROR_FUNCTION_NOT_FOUND, "nvmlDeviceGetTemperature"
}

// reasons reads the reason mask through the newest call the driver has.
func (d *Device) reasons() (uint64, gonvml.Return, string) {
	switch {
	case d.lib.syms.eventReasons:
		m, r := d.dev.GetCurrentClocksEventReasons()
		return m, r, "nvmlDeviceGetCurrentClocksEventReasons"
	case d.lib.syms.throttleReasons:
		m, r := d.dev.GetCurrentClocksThrottleReasons()
		return m, r, "nvmlDeviceGetCurrentClocksThrottleReasons"
	}
	return 0, gonvml.ERROR_FUNCTION_NOT_FOUND, "nvmlDeviceGetCurrentClocksEventReasons"
}

// PowerLimitW is the lowest power limit in force (operator's or board's), in watts.
func (d *Device) PowerLimitW() (float64, error) {
	var w float64
	err := d.lib.use(func() error {
		mw, r := d.dev.GetEnforcedPowerLimit()
		if r != gonvml.SUCCESS {
			return newError("nvmlDeviceGetEnforcedPowerLimit", r)
		}
		w = float64(mw) / 1000
		return nil
	})
	return w, err
}

package thermal

import (
	"sync"
	"time"
)

// Keys of Sample.Missing, one per field.
const (
	FieldTemperatureC    = "temperature_c"
	FieldPowerW          = "power_w"
	FieldSMClockMHz      = "sm_clock_mhz"
	FieldMemClockMHz     = "mem_clock_mhz"
	FieldThrottleReasons = "throttle_reasons"
)

// Sample is one reading of a card's thermal and clock state, from NVML
// (platform/nvml) or hwmon (platform/pci).
type Sample struct {
	// At is the wall-clock time just before the sample's first read.
	At time.Time
	// TemperatureC is the core temperature, degrees Celsius; NaN when
	// missing.
	TemperatureC float64
	// PowerW is the board power draw, watts; NaN when missing.
	PowerW float64
	// SMClockMHz is the current SM (shader, graphics) clock, MHz; 0 when
	// missing.
	SMClockMHz uint32
	// MemClockMHz is the current memory clock, MHz; 0 when missing.
	MemClockMHz uint32
	// ThrottleReasons is the driver's clock-limiting reason mask (NVML's
	// clocks-event bits); 0 when missing, which Missing tells apart from
	// "no reason". hwmon has none.
	ThrottleReasons uint64
	// ThrottleNames is ThrottleReasons decoded into snake_case names.
	ThrottleNames []string
	// Missing maps each Field… key that could not be read to the reason;
	// nil when every field was read.
	Missing map[string]string
}

// Telemetry reads a device's driver telemetry during a soak: its
// temperature, power and throttle reasons. Any load's soak (a WebGPU FMA,
// a vendor-library GEMM) reads it the same way.
type Telemetry interface {
	// Sample reads once. Fields the driver cannot give are listed in
	// Missing; the error says the device or driver as a whole failed.
	Sample() (Sample, error)
	// Source names it for the card ("nvml", "hwmon").
	Source() string
	// PowerLimitW is the board power limit the driver enforces, in watts.
	PowerLimitW() (float64, error)
}

// SampleGap is how often Sampled reads the telemetry.
const SampleGap = 500 * time.Millisecond

// Sampled runs hold while reading tel every SampleGap (nothing when tel
// is nil), and returns the readings, each At the time since hold began,
// with hold's error.
func Sampled(tel Telemetry, hold func() error) ([]Reading, error) {
	var (
		mu       sync.Mutex
		readings []Reading
	)
	start := time.Now()
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		sample(tel, start, stop, func(r Reading) { mu.Lock(); readings = append(readings, r); mu.Unlock() })
	}()
	err := hold()
	close(stop)
	<-done
	return readings, err
}

// sample reads tel every SampleGap until stop.
func sample(tel Telemetry, start time.Time, stop <-chan struct{}, keep func(Reading)) {
	if tel == nil {
		return
	}
	t := time.NewTicker(SampleGap)
	defer t.Stop()
	for {
		if s, err := tel.Sample(); err == nil {
			keep(Reading{At: time.Since(start), TemperatureC: s.TemperatureC, PowerW: s.PowerW, Throttle: s.ThrottleNames})
		}
		select {
		case <-stop:
			return
		case <-t.C:
		}
	}
}

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

// Sample is one reading of a card's thermal and clock state (NVML or hwmon).
type Sample struct {
	At              time.Time         // wall-clock time just before its first read
	TemperatureC    float64           // core, °C; NaN when missing
	PowerW          float64           // board draw, W; NaN when missing
	SMClockMHz      uint32            // SM (shader) clock, MHz; 0 when missing
	MemClockMHz     uint32            // MHz; 0 when missing
	ThrottleReasons uint64            // clock-limiting reason mask; 0 is "none" unless Missing lists it
	ThrottleNames   []string          // ThrottleReasons decoded, snake_case
	Missing         map[string]string // Field… key → why it is missing; nil when none is
}

// Telemetry reads a device's driver telemetry during a soak of any load.
type Telemetry interface {
	// Sample reads once; an error means the device or driver as a whole failed.
	Sample() (Sample, error)
	Source() string                // for the card: "nvml", "hwmon"
	PowerLimitW() (float64, error) // the enforced board power limit, W
}

// SampleGap is how often Sampled reads the telemetry.
const SampleGap = 500 * time.Millisecond

// Sampled runs hold while reading tel every SampleGap (never when tel is nil)
// and returns the readings, At measured from hold's start, with hold's error.
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

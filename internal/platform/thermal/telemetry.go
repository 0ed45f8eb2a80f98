package thermal

import (
	"sync"
	"time"
)

// Telemetry reads a device's driver telemetry during a soak: its
// temperature, power and throttle reasons. Any load's soak (a WebGPU FMA,
// a vendor-library GEMM) reads it the same way.
type Telemetry interface {
	// Read returns one reading, At unset; ok is false when nothing could
	// be read.
	Read() (r Reading, ok bool)
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
		if r, ok := tel.Read(); ok {
			r.At = time.Since(start)
			keep(r)
		}
		select {
		case <-stop:
			return
		case <-t.C:
		}
	}
}

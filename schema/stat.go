package schema

// Stat summarises repeated timed samples of one figure, after warm-up
// samples were discarded. Every field is in the unit named by the field
// that holds the Stat (for example bytes_per_s or seconds).
type Stat struct {
	// Samples is the number of timed samples kept (warm-up excluded).
	Samples int `json:"samples" validate:"gte=1"`
	// Median of the kept samples.
	Median float64 `json:"median" validate:"gt=0"`
	// Min of the kept samples.
	Min float64 `json:"min" validate:"gt=0,ltefield=Median"`
	// Max of the kept samples.
	Max float64 `json:"max" validate:"gt=0,gtefield=Median"`
}

// TimingMethod names how a duration was measured.
type TimingMethod string

const (
	// TimingGPUTimestamp: GPU timestamp queries written around the work.
	TimingGPUTimestamp TimingMethod = "gpu-timestamp"
	// TimingQueueWallClock: host monotonic clock from submit until the
	// queue reported the work done.
	TimingQueueWallClock TimingMethod = "queue-wall-clock"
	// TimingHostWallClock: host monotonic clock around host-side work.
	TimingHostWallClock TimingMethod = "host-wall-clock"
)

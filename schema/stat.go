package schema

// Stat summarises the timed samples of one figure, warm-up discarded, in
// the unit the field holding it names.
type Stat struct {
	// Samples is the number of samples kept.
	Samples int `json:"samples" validate:"gte=1"`
	// Median of the samples, in the figure's unit.
	Median float64 `json:"median" validate:"gt=0"`
	// Min of the samples, in the figure's unit.
	Min float64 `json:"min" validate:"gt=0,ltefield=Median"`
	// Max of the samples, in the figure's unit.
	Max float64 `json:"max" validate:"gt=0,gtefield=Median"`
}

// TimingMethod names how a duration was measured.
type TimingMethod string

const (
	TimingGPUTimestamp   TimingMethod = "gpu-timestamp"    // GPU timestamp queries around the work
	TimingQueueWallClock TimingMethod = "queue-wall-clock" // host clock from submit until the queue is done
	TimingHostWallClock  TimingMethod = "host-wall-clock"  // host clock around host-side work
)

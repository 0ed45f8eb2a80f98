package coopmat

import (
	"time"

	"github.com/everycycle/appraise/coopmat/vk"
)

// Result is one cooperative-matrix GEMM that ran and passed its check.
type Result struct {
	vk.Result
	tile CoopTile
}

// Options steer Run, RunShape, RunTile and Roofline. The zero value
// measures the default sizes.
type Options struct {
	vk.Options
	tamper func(probe string, out []byte) // tests: alters output before its check
}

// searchOptions is o with the tile search's short timing.
func (o Options) searchOptions() Options {
	o.Timing = vk.Timing{Warmup: vk.MinWarmup, Samples: vk.MinSamples, SampleTime: 10 * time.Millisecond}
	return o
}

// lines is CheckLines, default 4.
func (o Options) lines() int {
	if o.CheckLines <= 0 {
		return 4
	}
	return o.CheckLines
}

package coopmat

import (
	"time"

	"github.com/everycycle/appraise/coopmat/vk"
)

// Result is one cooperative-matrix GEMM that ran and passed its check,
// with the tile the measured search chose.
type Result struct {
	vk.Result

	// tile is the chosen tile itself, for Roofline.
	tile CoopTile
}

// Options steer Run and Roofline: the shared raw-Vulkan options (timing,
// GEMM edges, seed, checked lines, progress). The zero value measures the
// default sizes.
type Options struct {
	vk.Options

	// tamper, set by tests only, alters a kernel's raw output before its check.
	tamper func(probe string, out []byte)
}

// searchOptions is o with the short timing used by tile searches.
func (o Options) searchOptions() Options {
	o.Timing = vk.Timing{Warmup: vk.MinWarmup, Samples: vk.MinSamples, SampleTime: 10 * time.Millisecond}
	return o
}

// lines is the number of random rows and columns checked when the GEMM is
// too large to check whole (Options.CheckLines, default 4).
func (o Options) lines() int {
	if o.CheckLines <= 0 {
		return 4
	}
	return o.CheckLines
}

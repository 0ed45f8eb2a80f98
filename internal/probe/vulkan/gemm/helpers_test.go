package gemm

import (
	"time"

	"github.com/everycycle/appraise/internal/probe/vulkan"
)

// smallOptions keeps lavapipe runs short while honouring the minimums.
func smallOptions() Options {
	return Options{Options: vulkan.Options{
		Timing: vulkan.Timing{Samples: vulkan.MinSamples, SampleTime: 5 * time.Millisecond},
		Size:   64, Seed: 1, FMAInvocations: 1024, FMASteps: 64,
	}}
}

//go:build explore

// Package exploretest is what the explore records share: a device opened
// as --quick opens it, rounds from the environment, and a spread of ratios.
package exploretest

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"strconv"
	"testing"

	"github.com/everycycle/appraise/gpu"
	"github.com/everycycle/appraise/internal/measure/stats"
)

// QuickEffort is the Effort internal/appraisal's plan gives a under --quick.
func QuickEffort(a gpu.AdapterInfo) gpu.Effort {
	e := gpu.Effort{
		ALU:                  gpu.Sampling{BudgetS: 0.25, MinSamples: 3, MaxSamples: 5},
		Bandwidth:            gpu.Sampling{BudgetS: 0.25, MinSamples: 3, MaxSamples: 5},
		Roofline:             gpu.Sampling{BudgetS: 0.1, MaxSamples: 5},
		BandwidthTrialRounds: 2, RooflineThin: 1, RooflineMinArrayBytes: 4 << 20,
	}
	if a.Software {
		e.RooflineThin, e.BandwidthMaxArrayBytes = 2, 64<<20
	}
	return e
}

// QuickDevice opens the first adapter as a --quick appraisal does; it
// skips when there is none.
func QuickDevice(t *testing.T) *gpu.Device {
	inst, err := gpu.NewInstance()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(inst.Release)
	adapters, err := inst.Adapters()
	if errors.Is(err, gpu.ErrNoAdapter) {
		t.Skip("no WebGPU adapter")
	}
	if err != nil {
		t.Fatal(err)
	}
	d, err := gpu.Open(inst, adapters[0], gpu.Options{Effort: QuickEffort(adapters[0])})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(d.Release)
	return d
}

// EnvInt is the integer in the environment variable name, def when unset.
func EnvInt(t *testing.T, name string, def int) int {
	s := os.Getenv(name)
	if s == "" {
		return def
	}
	v, err := strconv.Atoi(s)
	if err != nil {
		t.Fatalf("%s=%q: %v", name, s, err)
	}
	return v
}

// Spread is xs's median and range.
func Spread(xs []float64) string {
	return fmt.Sprintf("%.3f (%.3f–%.3f)", stats.Median(xs), slices.Min(xs), slices.Max(xs))
}

//go:build !explore

package vulkan

import (
	"testing"
	"time"
)

// TestRunCoopMat searches and measures every cooperative-matrix shape at
// 256³, each checked. Built with -tags explore, the test of that name takes
// its sizes and shapes from flags instead (explore_coopmat_test.go).
func TestRunCoopMat(t *testing.T) {
	d := newDevice(t)
	o := Options{Size: 256, Seed: 7, Progress: func(l string) { t.Log(l) }}
	o.Timing = Timing{SampleTime: 20 * time.Millisecond}
	runCoopMat(t, d, o, func(Shape) bool { return true }, nil)
}

package gpu

import (
	"slices"
	"testing"
)

// TestQuickRooflineIters: quick mode keeps both ends of the sweep and
// every other point between them.
func TestQuickRooflineIters(t *testing.T) {
	got := newRooflineLimits(RooflineOptions{}, true).Iters
	want := []uint32{1, 4, 16, 64, 256, 1024}
	if !slices.Equal(got, want) {
		t.Errorf("quick points %v, want %v", got, want)
	}
	if full := newRooflineLimits(RooflineOptions{}, false).Iters; !slices.Equal(full, RooflineIters()) {
		t.Errorf("full points %v, want %v", full, RooflineIters())
	}
	if got := quickIters([]uint32{1, 2, 4, 8}); !slices.Equal(got, []uint32{1, 4, 8}) {
		t.Errorf("quickIters of an even count: %v", got)
	}
}

package gpu

import (
	"slices"
	"testing"
)

// TestQuickRooflineIters: --quick keeps both ends of the sweep and every
// other point between them (every fourth on a software adapter), and lets
// long points shrink further.
func TestQuickRooflineIters(t *testing.T) {
	got := newRooflineLimits(RooflineOptions{}, quickEffort).Iters
	want := []uint32{1, 4, 16, 64, 256, 1024}
	if !slices.Equal(got, want) {
		t.Errorf("quick points %v, want %v", got, want)
	}
	if full := newRooflineLimits(RooflineOptions{}, Effort{}).Iters; !slices.Equal(full, RooflineIters()) {
		t.Errorf("full points %v, want %v", full, RooflineIters())
	}
	if q, f := newRooflineLimits(RooflineOptions{}, quickEffort), newRooflineLimits(RooflineOptions{}, Effort{}); q.MinArrayBytes != 4<<20 || f.MinArrayBytes != minArrayBytes {
		t.Errorf("array floors: quick %d, full %d; want %d and %d", q.MinArrayBytes, f.MinArrayBytes, 4<<20, minArrayBytes)
	}
	for _, c := range []struct {
		e    Effort
		want []uint32
	}{{Effort{}, RooflineIters()}, {quickEffortOn(AdapterInfo{}), want}, {quickEffortOn(AdapterInfo{Software: true}), []uint32{1, 16, 256, 1024}}} {
		if got := newRooflineLimits(RooflineOptions{}, c.e).Iters; !slices.Equal(got, c.want) {
			t.Errorf("thinned %d times: points %v, want %v", c.e.RooflineThin, got, c.want)
		}
	}
	if got := thinIters([]uint32{1, 2, 4, 8}); !slices.Equal(got, []uint32{1, 4, 8}) {
		t.Errorf("thinIters of an even count: %v", got)
	}
}

package gpu

import (
	"slices"
	"testing"
)

// TestQuickRooflineIters: quick mode keeps both ends of the sweep and
// every other point between them (every fourth on a software adapter),
// and lets long points shrink further.
func TestQuickRooflineIters(t *testing.T) {
	got := newRooflineLimits(RooflineOptions{}, true).Iters
	want := []uint32{1, 4, 16, 64, 256, 1024}
	if !slices.Equal(got, want) {
		t.Errorf("quick points %v, want %v", got, want)
	}
	if full := newRooflineLimits(RooflineOptions{}, false).Iters; !slices.Equal(full, RooflineIters()) {
		t.Errorf("full points %v, want %v", full, RooflineIters())
	}
	if q, f := newRooflineLimits(RooflineOptions{}, true), newRooflineLimits(RooflineOptions{}, false); q.MinArrayBytes != quickMinArrayBytes || f.MinArrayBytes != minArrayBytes {
		t.Errorf("array floors: quick %d, full %d; want %d and %d", q.MinArrayBytes, f.MinArrayBytes, quickMinArrayBytes, minArrayBytes)
	}
	for _, c := range []struct {
		quick, software bool
		want            []uint32
	}{{false, true, RooflineIters()}, {true, false, want}, {true, true, []uint32{1, 16, 256, 1024}}} {
		d := &Device{info: AdapterInfo{Software: c.software}, opts: Options{Quick: c.quick}}
		if got := rooflineLimitsFor(RooflineOptions{}, d).Iters; !slices.Equal(got, c.want) {
			t.Errorf("quick %t, software %t: points %v, want %v", c.quick, c.software, got, c.want)
		}
	}
	if got := quickIters([]uint32{1, 2, 4, 8}); !slices.Equal(got, []uint32{1, 4, 8}) {
		t.Errorf("quickIters of an even count: %v", got)
	}
}

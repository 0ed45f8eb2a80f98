//go:build explore

// Research harness of the capacity probe, outside the product's tests: run
// it with go test -tags explore -run CapacityTimeline -v.

package gpu

import (
	"slices"
	"testing"
	"time"

	"github.com/cogentcore/webgpu/wgpu"
)

// TestCapacityTimeline runs the capacity probe's fill on the first adapter
// with each allocation and clear timed, then releases the chunks one at a
// time (each release waited for), and logs where the time went: the
// allocations in device memory, the clears, the chunks tried past it, and
// the release. It asks whether the probe's time is the driver's per-byte
// cost of allocating and freeing, or something of the probe's own.
func TestCapacityTimeline(t *testing.T) {
	for _, order := range []string{"forward", "reverse", "at-once"} {
		t.Run(order, func(t *testing.T) { capacityTimeline(t, order) })
	}
}

// capacityTimeline fills as TestCapacityTimeline says and releases the
// chunks in the order named: one at a time from the first allocated or
// from the last, or all at once as the probe does (one wait).
func capacityTimeline(t *testing.T, order string) {
	d := newDeviceOpts(t, Options{})
	r := newCapacityRun(d, CapacityOptions{})
	alloc, touch := r.alloc, r.touch
	type step struct {
		size          uint64
		allocS, touch float64
	}
	var steps []step
	r.alloc = func(size uint64) (*wgpu.Buffer, error) {
		start := time.Now()
		b, err := alloc(size)
		steps = append(steps, step{size: size, allocS: time.Since(start).Seconds()})
		return b, err
	}
	r.touch = func(b *wgpu.Buffer, size uint64) (float64, error) {
		start := time.Now()
		s, err := touch(b, size)
		steps[len(steps)-1].touch += time.Since(start).Seconds()
		return s, err
	}
	start := time.Now()
	why, err := r.fill(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	fillS := time.Since(start).Seconds()
	held := len(r.held)
	var inS, inTouch, pastS float64
	var inBytes, pastBytes uint64
	for i, s := range steps {
		if i < held {
			inS, inTouch, inBytes = inS+s.allocS, inTouch+s.touch, inBytes+s.size
			continue
		}
		pastS, pastBytes = pastS+s.allocS+s.touch, pastBytes+s.size
		t.Logf("past device memory: chunk %d of %d MiB: allocation %.1f ms, clears %.1f ms", i, s.size>>20, s.allocS*1e3, s.touch*1e3)
	}
	t.Logf("fill: %.2f s, %d chunks held (%d MiB), stopped by %q", fillS, held, r.total>>20, why)
	t.Logf("held chunks: allocation %.2f s (%.1f GB/s), clears %.2f s; tries past them: %.2f s over %d MiB",
		inS, float64(inBytes)/inS/1e9, inTouch, pastS, pastBytes>>20)
	for i, s := range steps[:min(held, 3)] {
		t.Logf("chunk %d: %d MiB, allocation %.1f ms, clear %.1f ms", i, s.size>>20, s.allocS*1e3, s.touch*1e3)
	}
	start = time.Now()
	if order == "at-once" {
		if err := r.release(); err != nil {
			t.Fatal(err)
		}
		relS := time.Since(start).Seconds()
		t.Logf("release, all at once: %.2f s (%.1f GB/s)", relS, float64(inBytes)/relS/1e9)
		return
	}
	if order == "reverse" {
		slices.Reverse(r.held)
	}
	var each []float64
	for i, b := range r.held {
		one := time.Now()
		b.Release()
		r.held[i] = nil
		if err := d.submitWait(); err != nil {
			t.Fatal(err)
		}
		each = append(each, time.Since(one).Seconds())
	}
	r.held = nil
	relS := time.Since(start).Seconds()
	t.Logf("release, one chunk at a time, %s: %.2f s (%.1f GB/s); first %.1f ms, middle %.1f ms, last %.1f ms",
		order, relS, float64(inBytes)/relS/1e9, each[0]*1e3, each[len(each)/2]*1e3, each[len(each)-1]*1e3)
}

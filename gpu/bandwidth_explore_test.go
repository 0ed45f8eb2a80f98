//go:build explore

// Research harnesses of the bandwidth probe, outside the product's tests:
// run them with go test -tags explore -run Sweep -v.

package gpu

import "testing"

// TestBandwidthPerInvocationSweep logs the write, copy and triad kernels at
// several elements per invocation on the first adapter at full size, each
// checked, to see whether a device prefers another count than the table's.
func TestBandwidthPerInvocationSweep(t *testing.T) {
	r, err := newBandwidthRun(t.Context(), newDeviceOpts(t, Options{}), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer r.release()
	for _, per := range []uint64{1, 2, 4, 8} {
		for _, k := range BandwidthKernels() {
			if k.Name == "read" {
				continue
			}
			r.disp[k.Name].perInvocation = per
		}
		if err := r.resize(r.n); err != nil {
			t.Fatal(err)
		}
		if err := r.fill(); err != nil { // triad rewrote a
			t.Fatal(err)
		}
		for _, k := range BandwidthKernels() {
			if k.Name == "read" {
				continue
			}
			k.PerInvocationCandidates = nil // this count, no trial
			res, err := r.measure(t.Context(), k)
			if err != nil {
				t.Fatalf("%s at %d per invocation: %v", k.Name, per, err)
			}
			s := res.BytesPerS
			t.Logf("%s per=%d %d MiB: %.1f GB/s (min %.1f, max %.1f, n=%d, %d iterations)", k.Name, per, res.ArrayBytes>>20,
				s.Median/1e9, s.Min/1e9, s.Max/1e9, s.Samples, res.Iterations)
		}
	}
}

package gpu

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

// TestBandwidthTable pins the bytes each kernel moves per element: the
// table BabelStream keeps in benchmark.h, and the doc comment above
// BandwidthKernels.
func TestBandwidthTable(t *testing.T) {
	want := map[string]uint64{"read": 16, "write": 16, "copy": 32, "triad": 48}
	ks := BandwidthKernels()
	if len(ks) != len(want) {
		t.Fatalf("%d kernels, want %d", len(ks), len(want))
	}
	for _, k := range ks {
		if got := k.BytesPerElement(); got != want[k.Name] {
			t.Errorf("%s: %d bytes per element, want %d", k.Name, got, want[k.Name])
		}
		if k.PerInvocation < 1 || k.Operation == "" || !strings.HasPrefix(k.Entry, "bw_") {
			t.Errorf("%s: incomplete row %+v", k.Name, k)
		}
		if len(k.PerInvocationCandidates) > 0 && !slices.Contains(k.PerInvocationCandidates, k.PerInvocation) {
			t.Errorf("%s: starts from %d per invocation, not among its candidates %v", k.Name, k.PerInvocation, k.PerInvocationCandidates)
		}
		for _, c := range k.PerInvocationCandidates {
			if c < 1 {
				t.Errorf("%s: candidate %d", k.Name, c)
			}
		}
	}
}

func TestArrayElements(t *testing.T) {
	big := Limits{MaxBufferBytes: 4 << 30, MaxStorageBindingBytes: 2 << 30}
	cases := []struct {
		name   string
		l      Limits
		mem    uint64
		wantMB uint64 // array size in MiB, 0 for an error
		// maxBytes caps the arrays (0: maxArrayBytes)
		maxBytes uint64
	}{
		{"big GPU, default limit", big, defaultMemoryLimit, 1024, 0},
		{"binding limit binds", Limits{MaxBufferBytes: 1 << 30, MaxStorageBindingBytes: 128 << 20}, 1 << 30, 128, 0},
		{"memory limit binds", big, 1 << 30, 319, 0},
		{"quick software adapter", Limits{MaxBufferBytes: 1 << 30, MaxStorageBindingBytes: 128 << 20}, 1 << 30, 64, minArrayBytes},
		{"too little memory", big, 200 << 20, 0, 0},
		{"no memory", big, 0, 0, 0},
	}
	for _, c := range cases {
		maxBytes := uint64(maxArrayBytes)
		if c.maxBytes > 0 {
			maxBytes = c.maxBytes
		}
		n, err := arrayElements(c.l, c.mem, maxBytes)
		if c.wantMB == 0 {
			if err == nil {
				t.Errorf("%s: got %d elements, want an error", c.name, n)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if got := n * ElementBytes >> 20; got != c.wantMB || n%wgSize != 0 {
			t.Errorf("%s: %d MiB (%d elements), want %d MiB in whole workgroups", c.name, got, n, c.wantMB)
		}
		total := 3*n*ElementBytes + uint64(groupsFor(n, 1))*ElementBytes + stagingChunk
		if total > c.mem {
			t.Errorf("%s: needs %d bytes, limit %d", c.name, total, c.mem)
		}
	}
}

// TestBandwidthQuick runs the whole probe and checks what it reports.
func TestBandwidthQuick(t *testing.T) {
	d := newDevice(t)
	res, err := MeasureBandwidthKernels(t.Context(), d, nil)
	if err != nil {
		t.Fatal(err)
	}
	table := BandwidthKernels()
	if len(res) != len(table) {
		t.Fatalf("%d results for %d kernels", len(res), len(table))
	}
	for i, r := range res {
		k := table[i]
		s := r.BytesPerS
		t.Logf("%-5s %7.2f GB/s (min %.2f, max %.2f, %d samples of %d dispatches) over %d MiB arrays, %s; %d values checked, max rel error %.3g (tolerance %.3g)",
			r.Kernel, s.Median/1e9, s.Min/1e9, s.Max/1e9, s.Samples, r.Iterations, r.ArrayBytes>>20, r.Timing, r.Checked, r.MaxRelError, r.Tolerance)
		if r.Kernel != k.Name || r.BytesPerDispatch != r.ArrayBytes/ElementBytes*k.BytesPerElement() {
			t.Errorf("%s: bytes per dispatch %d do not follow the table for %d-byte arrays", r.Kernel, r.BytesPerDispatch, r.ArrayBytes)
		}
		if s.Samples < bandwidthLimits(quickEffort.Bandwidth).MinSamples || !(s.Min > 0) || s.Min > s.Median || s.Median > s.Max {
			t.Errorf("%s: implausible stat %+v", r.Kernel, s)
		}
		// A plausibility bound, not an expectation: no memory system moves 100 TB/s.
		if s.Max > 100e12 {
			t.Errorf("%s: %.3g bytes/s is not plausible", r.Kernel, s.Max)
		}
		if r.Checked == 0 || r.MaxRelError > r.Tolerance || r.Timing != d.Timing() || r.ArrayBytes < minArrayBytes {
			t.Errorf("%s: check or size fields wrong: %+v", r.Kernel, r)
		}
		t.Logf("%s: %d elements per invocation", r.Kernel, r.PerInvocation)
		if cands := k.PerInvocationCandidates; len(cands) > 0 && !slices.Contains(cands, r.PerInvocation) ||
			len(cands) == 0 && r.PerInvocation != k.PerInvocation {
			t.Errorf("%s: %d elements per invocation, want %d or one of %v", r.Kernel, r.PerInvocation, k.PerInvocation, cands)
		}
	}
}

// TestBandwidthKernelSubset measures write then triad, without copy: write
// overwrites the array triad reads, and triad's check must still hold.
func TestBandwidthKernelSubset(t *testing.T) {
	d := newDevice(t)
	res, err := MeasureBandwidthKernels(t.Context(), d, []string{"write", "triad"})
	if err != nil {
		t.Fatal(err)
	}
	if len(res) != 2 || res[0].Kernel != "write" || res[1].Kernel != "triad" || res[1].Checked == 0 {
		t.Fatalf("results %+v", res)
	}
}

// TestBandwidthCatchesWrongResult corrupts one value of the write kernel's
// output as read back; the probe must fail with ErrCheckFailed.
func TestBandwidthCatchesWrongResult(t *testing.T) {
	d := newDevice(t)
	tamper := func(kernel string, off uint64, chunk []byte) []byte {
		if kernel == "write" && off == 0 {
			chunk[4*1234] ^= 0x01 // flip the lowest mantissa bit of one value
		}
		return chunk
	}
	_, err := measureBandwidth(t.Context(), d, BandwidthKernels(), tamper)
	if !errors.Is(err, ErrCheckFailed) || !strings.Contains(err.Error(), "write") {
		t.Fatalf("got %v, want a write check failure", err)
	}
	t.Log(err)
}

// TestBandwidthKernelsOnAnOddGrid runs each kernel once over an array that
// is not a whole number of workgroups, laid out over a 2-D grid with
// surplus workgroups, and checks every output.
func TestBandwidthKernelsOnAnOddGrid(t *testing.T) {
	d := newDevice(t)
	r := &bandwidthRun{d: d, lim: bandwidthLimits(quickEffort.Bandwidth), maxPerDim: 21}
	defer r.release()
	const n = 100*4*wgSize + 17 // copy: 101 groups of 4 per invocation, a 21 x 5 grid; 401 of 1 in 21 x 20
	if err := r.setup(n); err != nil {
		t.Fatal(err)
	}
	if err := r.fill(); err != nil {
		t.Fatal(err)
	}
	if ds := r.disp["copy"]; ds.groups != 101 || ds.x != 21 || ds.y != 5 {
		t.Fatalf("copy grid %d groups as %d x %d", ds.groups, ds.x, ds.y)
	}
	for _, k := range BandwidthKernels() {
		// Each count the trial may choose covers the array as well.
		for _, per := range append([]int{k.PerInvocation}, k.PerInvocationCandidates...) {
			ds := r.disp[k.Name]
			if err := r.setPer(ds, uint64(per)); err != nil {
				t.Fatal(err)
			}
			if err := d.run(work(ds.dispatch, 1)); err != nil {
				t.Fatal(err)
			}
			var res BandwidthResult
			if err := r.check(k.Name, &res); err != nil {
				t.Errorf("%s at %d per invocation: %v", k.Name, per, err)
			}
			if res.Checked == 0 {
				t.Errorf("%s at %d per invocation: nothing checked", k.Name, per)
			}
		}
	}
}

package gpu

import (
	"cmp"
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"time"

	"github.com/everycycle/appraise/schema"
)

// ElementBytes is the size of a bandwidth array element, a vec4<f32>.
const ElementBytes = 16

// BandwidthKernel is one row of the bandwidth table.
type BandwidthKernel struct {
	Name          string // "read", "write", "copy" or "triad"
	Entry         string // in wgsl/bandwidth.wgsl
	Operation     string // per element
	Reads, Writes int    // arrays read and written per element
	// PerInvocation is the elements one invocation handles, grid-stride,
	// unless a timed trial picks one of several PerInvocationCandidates.
	PerInvocation           int
	PerInvocationCandidates []int
}

// BytesPerElement is (Reads+Writes) * ElementBytes.
func (k BandwidthKernel) BytesPerElement() uint64 {
	return uint64(k.Reads+k.Writes) * ElementBytes
}

// BandwidthKernels returns the table in the order the probe runs it.
func BandwidthKernels() []BandwidthKernel {
	trial := []int{1, 2, 4, 8}
	return []BandwidthKernel{
		{Name: "read", Entry: "bw_read", Operation: "sum += a[i]", Reads: 1, PerInvocation: 16},
		{Name: "write", Entry: "bw_write", Operation: "c[i] = pattern(i)", Writes: 1, PerInvocation: 4, PerInvocationCandidates: trial},
		{Name: "copy", Entry: "bw_copy", Operation: "c[i] = a[i]", Reads: 1, Writes: 1, PerInvocation: 4, PerInvocationCandidates: trial},
		{Name: "triad", Entry: "bw_triad", Operation: "a[i] = b[i] + scalar*c[i]", Reads: 2, Writes: 1, PerInvocation: 4, PerInvocationCandidates: trial},
	}
}

// BandwidthResult is one kernel's measured bandwidth.
type BandwidthResult struct {
	Kernel           string // the row of BandwidthKernels
	ArrayBytes       uint64 // each array's size
	PerInvocation    int    // elements each invocation handled
	BytesPerDispatch uint64
	Iterations       int         // dispatches per timed sample
	BytesPerS        schema.Stat // decimal: 1e9 bytes/s is 1 GB/s
	Timing           schema.TimingMethod
	Checked          uint64 // float32 values compared (read: of its partial sums)
	MaxRelError      float64
	Tolerance        float64 // relative; 0 is exact
}

const (
	maxArrayBytes = 1 << 30
	minArrayBytes = 64 << 20 // smaller could sit in a last-level cache
	wgSize        = 256
	warmUp        = 250 * time.Millisecond // before each kernel's samples
	warmUpBatchS  = 50e-3
)

// SoftwareWarmUp caps every warm-up on a software adapter, which has no
// clocks of its own to bring up.
const SoftwareWarmUp = 50 * time.Millisecond

// warmUpTime is dur, at most SoftwareWarmUp on a software adapter.
func (d *Device) warmUpTime(dur time.Duration) time.Duration {
	if d.info.Software {
		return min(dur, SoftwareWarmUp)
	}
	return dur
}

func bandwidthLimits(s Sampling) calibrationLimits {
	return s.apply(calibrationLimits{
		MinSampleS: 2e-3, LaunchFactor: 20, MaxDispatchS: 0.1,
		MinElements: minArrayBytes / ElementBytes, ElementStep: wgSize,
		MaxIterations: 4096, BudgetS: 0.5, MinSamples: 5, MaxSamples: 30,
	})
}

// MeasureBandwidthKernels measures the kernels of BandwidthKernels named
// (none means all) and checks their output; a failed check returns an
// error wrapping ErrCheckFailed.
func MeasureBandwidthKernels(ctx context.Context, d *Device, names []string) ([]BandwidthResult, error) {
	ks, err := selectRows(BandwidthKernels(), names, func(k BandwidthKernel) string { return k.Name })
	if err != nil {
		return nil, fmt.Errorf("gpu: bandwidth: %w", err)
	}
	return measureBandwidth(ctx, d, ks, nil)
}

// tamperFunc lets a test alter read-back data before the check.
type tamperFunc func(kernel string, offset uint64, chunk []byte) []byte

func measureBandwidth(ctx context.Context, d *Device, ks []BandwidthKernel, tamper tamperFunc) ([]BandwidthResult, error) {
	r, err := newBandwidthRun(ctx, d, tamper)
	if err != nil {
		return nil, err
	}
	defer r.release()
	var results []BandwidthResult
	for _, k := range ks {
		d.progress("bandwidth: %s over %d MiB arrays", k.Name, r.n*ElementBytes>>20)
		res, err := r.measure(ctx, k)
		if err != nil {
			return nil, fmt.Errorf("bandwidth %s: %w", k.Name, err)
		}
		results = append(results, res)
	}
	return results, nil
}

// newBandwidthRun leaves nothing behind on error.
func newBandwidthRun(ctx context.Context, d *Device, tamper tamperFunc) (*bandwidthRun, error) {
	if err := d.alive(); err != nil {
		return nil, err
	}
	elems, err := arrayElements(d.limits, d.memLimit, cmp.Or(d.opts.Effort.BandwidthMaxArrayBytes, maxArrayBytes))
	if err != nil {
		return nil, err
	}
	r := &bandwidthRun{d: d, lim: bandwidthLimits(d.opts.Effort.Bandwidth), tamper: tamper,
		maxPerDim: d.limits.MaxWorkgroupsPerDimension}
	if err := r.setup(elems); err != nil {
		r.release()
		return nil, err
	}
	if err := r.prepare(ctx); err != nil {
		r.release()
		return nil, err
	}
	return r, nil
}

// arrayElements sizes each array, in vec4 elements, up to maxBytes and the
// limits, in whole workgroups; it fails below minArrayBytes.
func arrayElements(l Limits, memLimit, maxBytes uint64) (uint64, error) {
	bytes := min(maxBytes, l.MaxStorageBindingBytes, l.MaxBufferBytes)
	if memLimit > stagingChunk {
		// three arrays, read's partials (S/256) and a staging chunk
		bytes = min(bytes, (memLimit-stagingChunk)*wgSize/(3*wgSize+1))
	} else {
		bytes = 0
	}
	elems := bytes / ElementBytes / wgSize * wgSize
	if elems*ElementBytes < minArrayBytes {
		return 0, fmt.Errorf("gpu: bandwidth arrays would be %d bytes, below the %d-byte minimum (memory limit %d, max storage binding %d, max buffer %d)",
			elems*ElementBytes, minArrayBytes, memLimit, l.MaxStorageBindingBytes, l.MaxBufferBytes)
	}
	return elems, nil
}

func groupsFor(n, perInvocation uint64) uint32 {
	per := wgSize * max(perInvocation, 1)
	return uint32((n + per - 1) / per)
}

func bandwidthParams(n uint64, groups, seed uint32) []byte {
	b := make([]byte, 16)
	binary.LittleEndian.PutUint32(b[0:], uint32(n))
	binary.LittleEndian.PutUint32(b[4:], groups)
	binary.LittleEndian.PutUint32(b[8:], seed)
	binary.LittleEndian.PutUint32(b[12:], math.Float32bits(triadScalar))
	return b
}

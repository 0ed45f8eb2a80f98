package gpu

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"time"

	"github.com/everycycle/appraise/schema"
)

// ElementBytes is the size of one array element of the bandwidth kernels:
// a vec4<f32>.
const ElementBytes = 16

// BandwidthKernel is one row of the bandwidth table (BabelStream's
// benchmark.h): what a kernel does and how many arrays it reads and writes
// per element. The table drives both the bandwidth formula and the docs.
type BandwidthKernel struct {
	// Name is the kernel's name in results: "read", "write", "copy", "triad".
	Name string
	// Entry is its entry point in wgsl/bandwidth.wgsl.
	Entry string
	// Operation is what it computes per element.
	Operation string
	// Reads and Writes count the arrays read and written per element.
	Reads, Writes int
	// PerInvocation is how many elements one invocation handles, walking
	// the array grid-stride (1 would be one element per invocation): the
	// count the kernel starts from.
	PerInvocation int
	// PerInvocationCandidates, when it lists more than one count, are the
	// counts a short timed trial on the device chooses from before the
	// samples (PerInvocation among them).
	PerInvocationCandidates []int
}

// BytesPerElement is the bytes one element of the kernel moves:
// (Reads+Writes) * ElementBytes.
func (k BandwidthKernel) BytesPerElement() uint64 {
	return uint64(k.Reads+k.Writes) * ElementBytes
}

// BandwidthKernels returns the table, in the order the probe runs the
// kernels:
//
//	kernel  operation                    reads  writes  bytes/element  elements/invocation
//	read    sum += a[i]                  1      0       16             16
//	write   c[i] = pattern(i)            0      1       16             1, 2, 4 or 8 (trial)
//	copy    c[i] = a[i]                  1      1       32             1, 2, 4 or 8 (trial)
//	triad   a[i] = b[i] + scalar*c[i]    2      1       48             1, 2, 4 or 8 (trial)
//
// An element is a vec4<f32> (ElementBytes). Every kernel walks its arrays
// grid-stride with a fixed number of elements per invocation, so the grid
// follows the array size only (a 1 GiB array gives 65,536 workgroups of
// 256 for copy at 4 per invocation).
//
// No one count suits every device, so write, copy and triad take theirs
// from a short timed trial on the device (choosePer), starting from 4: a
// software adapter runs each workgroup as a loop on one CPU thread, where
// a few elements per invocation amortise the per-workgroup cost but many
// make each workgroup hop between pages far apart, while a GPU may do best
// with one. read pays an
// 8-step barrier-separated tree reduction per workgroup, so it wants more
// work per workgroup and keeps 16 (its partial sums, one vec4 per 4096
// elements, are not counted, which understates it by 1/4096).
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
	// Kernel names the row of BandwidthKernels.
	Kernel string
	// ArrayBytes is the size of each array, in bytes.
	ArrayBytes uint64
	// PerInvocation is the elements each invocation handled.
	PerInvocation int
	// BytesPerDispatch is what one dispatch moves by the table, in bytes.
	BytesPerDispatch uint64
	// Iterations is the number of dispatches in one timed sample.
	Iterations int
	// BytesPerS is BytesPerDispatch*Iterations over each sample's time, in
	// bytes/s (decimal: 1e9 bytes/s is 1 GB/s).
	BytesPerS schema.Stat
	// Timing says how the samples were timed.
	Timing schema.TimingMethod
	// Checked counts the float32 values compared with the CPU reference: four
	// per array element, or four per workgroup partial sum for read (whose
	// partial sums together cover every element).
	Checked uint64
	// MaxRelError is the largest relative error the check saw.
	MaxRelError float64
	// Tolerance is the relative error the check allowed (0: exact).
	Tolerance float64
}

// Sizing and timing rules of the bandwidth probe.
const (
	// maxArrayBytes caps each array; minArrayBytes is the smallest array the
	// probe accepts (smaller ones could sit in a last-level cache).
	maxArrayBytes = 1 << 30
	minArrayBytes = 64 << 20
	// wgSize is the workgroup size of bandwidth.wgsl.
	wgSize = 256
	// warmUp is the sustained load before each kernel's samples (GPUs idle
	// at low clocks); warmUpBatchS is the longest warm-up submission.
	warmUp       = 250 * time.Millisecond
	warmUpBatchS = 50e-3
)

// SoftwareWarmUp caps every warm-up on a software adapter. A warm-up
// brings a GPU's clocks up from idle and lets a driver finish a pipeline
// at its first dispatch; a software adapter runs on the host's cores,
// which have no clocks of the device's own to bring up, so it needs only
// the first dispatches, which touch the memory and start its threads.
const SoftwareWarmUp = 50 * time.Millisecond

// warmUpTime is how long d warms up where a GPU warms up for dur: dur,
// or at most SoftwareWarmUp on a software adapter.
func (d *Device) warmUpTime(dur time.Duration) time.Duration {
	if d.info.Software {
		return min(dur, SoftwareWarmUp)
	}
	return dur
}

// bandwidthLimits are the calibration limits of the bandwidth probe.
func bandwidthLimits(quick bool) calibrationLimits {
	l := calibrationLimits{
		MinSampleS: 2e-3, LaunchFactor: 20, MaxDispatchS: 0.1,
		MinElements: minArrayBytes / ElementBytes, ElementStep: wgSize,
		MaxIterations: 4096, BudgetS: 0.5, MinSamples: 5, MaxSamples: 30,
	}
	if quick {
		l.BudgetS, l.MinSamples, l.MaxSamples = 0.25, 3, 5
	}
	return l
}

// MeasureBandwidthKernels measures the bandwidth of the kernels of
// BandwidthKernels named (none named means all), in table order, over
// arrays sized from the device's limits and memory limit (up to 1 GiB
// each), after a warm-up, and checks every kernel's output against the
// CPU reference. A failed check returns an error wrapping ErrCheckFailed.
func MeasureBandwidthKernels(ctx context.Context, d *Device, names []string) ([]BandwidthResult, error) {
	ks, err := selectRows(BandwidthKernels(), names, func(k BandwidthKernel) string { return k.Name })
	if err != nil {
		return nil, fmt.Errorf("gpu: bandwidth: %w", err)
	}
	return measureBandwidth(ctx, d, ks, nil)
}

// tamperFunc lets a test alter read-back data before the check.
type tamperFunc func(kernel string, offset uint64, chunk []byte) []byte

// measureBandwidth is MeasureBandwidthKernels with a test hook.
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

// newBandwidthRun sizes the arrays, creates them and every dispatch, and
// fills them (prepare); on error nothing is left behind.
func newBandwidthRun(ctx context.Context, d *Device, tamper tamperFunc) (*bandwidthRun, error) {
	if err := d.alive(); err != nil {
		return nil, err
	}
	maxBytes := uint64(maxArrayBytes)
	if d.info.Software && d.opts.Quick {
		maxBytes = minArrayBytes
	}
	elems, err := arrayElements(d.limits, d.memLimit, maxBytes)
	if err != nil {
		return nil, err
	}
	r := &bandwidthRun{d: d, lim: bandwidthLimits(d.opts.Quick), tamper: tamper,
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

// arrayElements sizes each array, in vec4 elements: as large as maxBytes
// (maxArrayBytes, or minArrayBytes for a --quick software adapter;
// docs/measuring.md says why), the device's buffer and binding limits and
// the memory limit allow (three arrays, read's partial sums and one
// staging chunk must fit), in whole workgroups. It fails below
// minArrayBytes.
func arrayElements(l Limits, memLimit, maxBytes uint64) (uint64, error) {
	bytes := min(maxBytes, l.MaxStorageBindingBytes, l.MaxBufferBytes)
	if memLimit > stagingChunk {
		// 3 arrays + partials (at most 1/256 of an array) + staging:
		// S*(3+1/256) + chunk.
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

// groupsFor is the number of workgroups a bandwidth dispatch over n
// elements uses when each invocation handles perInvocation of them.
func groupsFor(n, perInvocation uint64) uint32 {
	per := wgSize * max(perInvocation, 1)
	return uint32((n + per - 1) / per)
}

// bandwidthParams encodes the Params uniform of bandwidth.wgsl.
func bandwidthParams(n uint64, groups, seed uint32) []byte {
	b := make([]byte, 16)
	binary.LittleEndian.PutUint32(b[0:], uint32(n))
	binary.LittleEndian.PutUint32(b[4:], groups)
	binary.LittleEndian.PutUint32(b[8:], seed)
	binary.LittleEndian.PutUint32(b[12:], math.Float32bits(triadScalar))
	return b
}

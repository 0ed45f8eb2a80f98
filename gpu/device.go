package gpu

import (
	"errors"
	"fmt"
	"time"

	"github.com/cogentcore/webgpu/wgpu"
	"github.com/everycycle/appraise/schema"
)

// ErrCheckFailed is wrapped by the error of a kernel whose output disagreed
// with its reference.
var ErrCheckFailed = errors.New("gpu: kernel result check failed")

// ErrDeviceHung is wrapped by the error of a wait past the hang limit.
var ErrDeviceHung = errors.New("gpu: device hung")

// Options says how a device may be used.
type Options struct {
	MemoryLimit uint64           // bytes a probe may hold; 0 is 1 GiB on a software adapter, else 4 GiB
	Effort      Effort           // the zero value is the full appraisal
	Progress    func(msg string) // when not nil, receives progress messages
}

// Effort trims the probes' work; each zero field keeps the probe's default.
type Effort struct {
	ALU, Bandwidth, Roofline Sampling // the soak is sized as ALU is
	BandwidthMaxArrayBytes   uint64   // caps each bandwidth array; 0 means 1 GiB
	BandwidthTrialRounds     int      // rounds of the elements-per-invocation trial; 0 means 3
	RooflineThin             int      // times the sweep keeps every other intensity and the last
	RooflineMinArrayBytes    uint64   // how far a compute-bound roofline point may shrink its arrays; 0 means 64 MiB
}

const (
	softwareMemoryLimit = 1 << 30
	defaultMemoryLimit  = 4 << 30
	requestedLimitCap   = 4 << 30 // wgpu reads "undefined" as 256 MiB
)

// Features lists the optional WebGPU features the device was opened with.
type Features struct {
	TimestampQuery bool
}

// Limits are the device limits the probes size their work by.
type Limits struct {
	MaxBufferBytes            uint64
	MaxStorageBindingBytes    uint64
	MaxWorkgroupsPerDimension uint32
}

// Device is an opened adapter. Create it with Open; Release it when done.
type Device struct {
	info     AdapterInfo
	opts     Options
	memLimit uint64
	features Features
	limits   Limits

	adapter *wgpu.Adapter
	sink    *errorSink
	dev     *wgpu.Device
	queue   *wgpu.Queue
	clock   *gpuClock // nil when kernels are timed by the host clock

	timing     schema.TimingMethod
	timingNote string

	hung      bool          // a wait outlasted the hang limit
	hangAfter time.Duration // the hang limit when not zero
}

// Open opens adapter a of inst and decides whether GPU timestamps can be
// trusted. Uncaptured errors and device loss are returned by the next wait.
func Open(inst *Instance, a AdapterInfo, opts Options) (*Device, error) {
	if inst == nil || inst.inst == nil {
		return nil, errors.New("gpu: Open on a released instance")
	}
	d := &Device{info: a, opts: opts, memLimit: memoryLimit(a, opts)}
	if err := d.open(inst); err != nil {
		d.Release()
		return nil, err
	}
	return d, nil
}

func (d *Device) open(inst *Instance) error {
	adapter, err := inst.adapterFor(d.info)
	if err != nil {
		return err
	}
	d.adapter = adapter
	features := wantedFeatures(adapter)
	limits := wantedLimits(adapter.GetLimits().Limits, d.memLimit)
	d.sink = newSink()
	d.dev, err = requestDevice(adapter, features, limits, d.sink)
	if err != nil {
		return fmt.Errorf("webgpu: RequestDevice on %q: %w", d.info.DisplayName(), err)
	}
	d.queue = d.dev.GetQueue()
	d.features = featureSet(d.dev)
	d.limits = limitsOf(d.dev.GetLimits().Limits)
	d.progress("checking GPU timestamps")
	return d.setupTiming()
}

func memoryLimit(a AdapterInfo, opts Options) uint64 {
	switch {
	case opts.MemoryLimit > 0:
		return opts.MemoryLimit
	case a.Software:
		return softwareMemoryLimit
	default:
		return defaultMemoryLimit
	}
}

func wantedFeatures(a *wgpu.Adapter) []wgpu.FeatureName {
	var fs []wgpu.FeatureName
	for _, f := range []wgpu.FeatureName{wgpu.FeatureNameTimestampQuery} {
		if a.HasFeature(f) {
			fs = append(fs, f)
		}
	}
	return fs
}

func featureSet(dev *wgpu.Device) Features {
	return Features{
		TimestampQuery: dev.HasFeature(wgpu.FeatureNameTimestampQuery),
	}
}

func wantedLimits(a wgpu.Limits, memLimit uint64) wgpu.Limits {
	l := wgpu.DefaultLimits()
	bufCap := min(uint64(requestedLimitCap), memLimit)
	l.MaxBufferSize = min(a.MaxBufferSize, bufCap)
	l.MaxStorageBufferBindingSize = min(a.MaxStorageBufferBindingSize, bufCap)
	l.MaxStorageBuffersPerShaderStage = a.MaxStorageBuffersPerShaderStage
	l.MaxComputeWorkgroupStorageSize = a.MaxComputeWorkgroupStorageSize
	l.MaxComputeInvocationsPerWorkgroup = a.MaxComputeInvocationsPerWorkgroup
	l.MaxComputeWorkgroupSizeX = a.MaxComputeWorkgroupSizeX
	l.MaxComputeWorkgroupSizeY = a.MaxComputeWorkgroupSizeY
	l.MaxComputeWorkgroupSizeZ = a.MaxComputeWorkgroupSizeZ
	l.MaxComputeWorkgroupsPerDimension = a.MaxComputeWorkgroupsPerDimension
	return l
}

func limitsOf(l wgpu.Limits) Limits {
	return Limits{
		MaxBufferBytes:            l.MaxBufferSize,
		MaxStorageBindingBytes:    l.MaxStorageBufferBindingSize,
		MaxWorkgroupsPerDimension: l.MaxComputeWorkgroupsPerDimension,
	}
}

// Release frees the device; safe twice. A hung device is left allocated.
func (d *Device) Release() {
	if d == nil || d.hung {
		return
	}
	if d.clock != nil {
		d.clock.release()
		d.clock = nil
	}
	if d.queue != nil {
		d.queue.Release()
		d.queue = nil
	}
	if d.dev != nil {
		d.dev.Release()
		d.dev = nil
	}
	d.sink.free()
	d.sink = nil
	if d.adapter != nil {
		d.adapter.Release()
		d.adapter = nil
	}
}

// MemoryLimit is the most bytes a probe may allocate at once, in bytes.
func (d *Device) MemoryLimit() uint64 { return d.memLimit }

func (d *Device) progress(format string, args ...any) {
	if d.opts.Progress != nil {
		d.opts.Progress(fmt.Sprintf(format, args...))
	}
}

func (d *Device) alive() error {
	if d == nil || d.dev == nil {
		return errors.New("gpu: device is released")
	}
	return d.sink.err()
}

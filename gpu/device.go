package gpu

import (
	"errors"
	"fmt"
	"time"

	"github.com/cogentcore/webgpu/wgpu"
	"github.com/everycycle/appraise/schema"
)

// ErrCheckFailed is wrapped by every error a probe returns because a
// kernel's output disagreed with its CPU reference.
var ErrCheckFailed = errors.New("gpu: kernel result check failed")

// ErrDeviceHung is wrapped by the error of a wait for submitted work that
// did not end within the hang limit (wait.go).
var ErrDeviceHung = errors.New("gpu: device hung")

// Options says how a device may be used.
type Options struct {
	// MemoryLimit is the most bytes any probe may allocate on the device at
	// once. Zero means the default: 1 GiB on a software adapter, 4 GiB
	// otherwise. Callers should set at most 1 GiB for software adapters, whose
	// "device memory" is the host's RAM.
	MemoryLimit uint64
	// Quick asks probes for fewer samples and shorter budgets.
	Quick bool
	// Progress, when not nil, receives short progress messages.
	Progress func(msg string)
}

// Memory limits used when Options.MemoryLimit is zero, and the cap on the
// buffer limits requested from the device (wgpu reads 2^64-1 as "undefined"
// and keeps its 256 MiB default, so a concrete value must be asked for).
const (
	softwareMemoryLimit = 1 << 30
	defaultMemoryLimit  = 4 << 30
	requestedLimitCap   = 4 << 30
)

// Features lists the optional WebGPU features the device was opened with.
type Features struct {
	// TimestampQuery: GPU timestamp queries (used only if they also pass the
	// sanity check in timing.go; see Device.Timing).
	TimestampQuery bool
	// ShaderF16: WGSL f16.
	ShaderF16 bool
}

// Limits are the device limits the probes size their work by.
type Limits struct {
	// MaxBufferBytes is the largest buffer the device accepts, in bytes.
	MaxBufferBytes uint64
	// MaxStorageBindingBytes is the largest storage-buffer binding, in bytes.
	MaxStorageBindingBytes uint64
	// MaxWorkgroupsPerDimension bounds each dimension of a dispatch.
	MaxWorkgroupsPerDimension uint32
}

// Device is an opened adapter: a WebGPU device and its queue, with what the
// probes need to know about it. Create it with Open; Release it when done.
type Device struct {
	info     AdapterInfo
	opts     Options
	memLimit uint64
	features Features
	limits   Limits

	adapter *wgpu.Adapter
	sink    *errorSink // uncaptured errors and device loss (wgpu_gap.go)
	dev     *wgpu.Device
	queue   *wgpu.Queue
	clock   *gpuClock // nil when kernels are timed by the host clock

	timing     schema.TimingMethod
	timingNote string

	hung      bool          // a wait outlasted the hang limit (wait.go)
	hangAfter time.Duration // the hang limit when not zero; tests shorten it
}

// Open opens adapter a of inst. It requests concrete buffer limits (the
// adapter's, capped at 4 GiB and at the memory limit), the compute limits the
// adapter reports, and the timestamp-query, shader-f16 and shader-f64
// features where offered; then it checks whether GPU timestamps can be
// trusted (see Timing). Uncaptured WebGPU errors and device loss are
// recorded (wgpu_gap.go) and returned by the next wait instead of ending
// the process. A failure part way releases what was made.
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

// open does Open's work on d; the caller releases d on error.
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

// memoryLimit is opts.MemoryLimit, or the default for the adapter's kind.
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

// wantedFeatures lists the optional features the adapter offers that the
// probes can use.
func wantedFeatures(a *wgpu.Adapter) []wgpu.FeatureName {
	var fs []wgpu.FeatureName
	for _, f := range []wgpu.FeatureName{wgpu.FeatureNameTimestampQuery,
		wgpu.FeatureNameShaderF16, wgpu.NativeFeatureShaderF64} {
		if a.HasFeature(f) {
			fs = append(fs, f)
		}
	}
	return fs
}

// featureSet reads back which features the device has.
func featureSet(dev *wgpu.Device) Features {
	return Features{
		TimestampQuery: dev.HasFeature(wgpu.FeatureNameTimestampQuery),
		ShaderF16:      dev.HasFeature(wgpu.FeatureNameShaderF16),
	}
}

// wantedLimits starts from WebGPU's defaults and asks for the adapter's own
// buffer and compute limits, with concrete (capped) buffer sizes.
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

// limitsOf extracts the limits the probes use.
func limitsOf(l wgpu.Limits) Limits {
	return Limits{
		MaxBufferBytes:            l.MaxBufferSize,
		MaxStorageBindingBytes:    l.MaxStorageBufferBindingSize,
		MaxWorkgroupsPerDimension: l.MaxComputeWorkgroupsPerDimension,
	}
}

// Release frees the device and everything it holds. It is safe to call
// twice. A hung device is left allocated, and so is everything wgpu still
// holds for it: work it never finished may still use them.
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
	d.sink.free() // the device, and its callbacks, are gone
	d.sink = nil
	if d.adapter != nil {
		d.adapter.Release()
		d.adapter = nil
	}
}

// MemoryLimit is the most bytes a probe may allocate at once, in bytes.
func (d *Device) MemoryLimit() uint64 { return d.memLimit }

// progress passes a message to Options.Progress when it is set.
func (d *Device) progress(format string, args ...any) {
	if d.opts.Progress != nil {
		d.opts.Progress(fmt.Sprintf(format, args...))
	}
}

// alive returns an error when the device has been released, lost, or has
// reported an uncaptured error.
func (d *Device) alive() error {
	if d == nil || d.dev == nil {
		return errors.New("gpu: device is released")
	}
	return d.sink.err()
}

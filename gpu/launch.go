package gpu

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"time"

	"github.com/cogentcore/webgpu/wgpu"
	"github.com/everycycle/appraise/schema"
)

// LaunchResult is the launch overhead of a device.
type LaunchResult struct {
	// EmptyDispatchRoundTripS is the time to encode, submit and wait for one
	// dispatch of a one-invocation kernel, in seconds.
	EmptyDispatchRoundTripS schema.Stat
	// Upload1MiBS is the time to write 1 MiB from the host into a device
	// buffer (WriteBuffer, submit, wait), in seconds.
	Upload1MiBS schema.Stat
	// Timing is how both were timed: the host's monotonic clock around the
	// host-side work and the wait for the queue.
	Timing schema.TimingMethod
	// Dispatches is the number of dispatches the kernel's counter confirmed,
	// warm-up included.
	Dispatches uint64
	// UploadsChecked is the number of timed uploads read back and compared
	// byte for byte with what was sent.
	UploadsChecked int
}

// uploadBytes is the size of the upload whose latency is measured.
const uploadBytes = 1 << 20

// launchEntry is the counter kernel's entry point in wgsl/launch.wgsl.
const launchEntry = "touch"

// launchLimits bound the number of launch samples.
func launchLimits(quick bool) calibrationLimits {
	if quick {
		return calibrationLimits{BudgetS: 0.15, MinSamples: 20, MaxSamples: 300}
	}
	return calibrationLimits{BudgetS: 0.5, MinSamples: 30, MaxSamples: 1000}
}

// MeasureLaunch measures the empty-dispatch round trip and the latency of a
// 1 MiB host-to-device upload, each after a warm-up, with as many samples
// as fit a short budget. The dispatch kernel counts its runs and every
// upload is read back, so a lost dispatch or a corrupt upload returns an
// error wrapping ErrCheckFailed.
func MeasureLaunch(ctx context.Context, d *Device) (LaunchResult, error) {
	return measureLaunch(ctx, d, nil)
}

// measureLaunch is MeasureLaunch with a test hook.
func measureLaunch(ctx context.Context, d *Device, tamper tamperFunc) (LaunchResult, error) {
	l, err := newLauncher(d, tamper)
	if err != nil {
		return LaunchResult{}, err
	}
	defer l.release()
	lim := launchLimits(d.opts.Quick)
	d.progress("launch: empty dispatch round trip")
	empty, err := l.sampled(ctx, lim, l.roundTrip)
	if err == nil {
		err = l.checkCounter()
	}
	if err != nil {
		return LaunchResult{}, fmt.Errorf("launch: empty dispatch: %w", err)
	}
	d.progress("launch: 1 MiB upload")
	up, err := l.sampled(ctx, lim, l.upload)
	if err != nil {
		return LaunchResult{}, fmt.Errorf("launch: 1 MiB upload: %w", err)
	}
	return LaunchResult{EmptyDispatchRoundTripS: empty, Upload1MiBS: up,
		Timing: schema.TimingHostWallClock, Dispatches: l.count, UploadsChecked: l.uploads}, nil
}

// launcher runs the one-invocation counter kernel and the 1 MiB uploads.
type launcher struct {
	d       *Device
	tamper  tamperFunc
	ks      *kernelSet
	counter *wgpu.Buffer
	bg      *wgpu.BindGroup
	up      *wgpu.Buffer
	data    []byte
	count   uint64 // dispatches submitted
	uploads int    // uploads checked
}

// newLauncher compiles the counter kernel and creates its buffers. On
// error nothing is left behind.
func newLauncher(d *Device, tamper tamperFunc) (*launcher, error) {
	if err := d.alive(); err != nil {
		return nil, err
	}
	l := &launcher{d: d, tamper: tamper, data: make([]byte, uploadBytes)}
	if err := l.setup(); err != nil {
		l.release()
		return nil, err
	}
	return l, nil
}

// setup does newLauncher's work; the caller releases l on error.
func (l *launcher) setup() error {
	var err error
	if l.ks, err = l.d.compile("launch", probeKernels()["launch"]...); err != nil {
		return err
	}
	// 16 bytes: a whole copy and map unit; the kernel uses the first word.
	if l.counter, err = l.d.storageBuffer("counter", 16); err != nil {
		return err
	}
	if err = l.d.run(func(enc *wgpu.CommandEncoder) error { return enc.ClearBuffer(l.counter, 0, 16) }); err != nil {
		return fmt.Errorf("webgpu: ClearBuffer: %w", err)
	}
	if l.bg, err = l.d.bindGroup(l.ks.kernels[launchEntry], binding{0, l.counter}); err != nil {
		return err
	}
	l.up, err = l.d.storageBuffer("upload", uploadBytes)
	return err
}

// release frees what the launcher created. Safe on a partial launcher.
func (l *launcher) release() {
	if l.up != nil {
		l.up.Release()
	}
	if l.bg != nil {
		l.bg.Release()
	}
	if l.counter != nil {
		l.counter.Release()
	}
	if l.ks != nil {
		l.ks.release()
	}
}

// roundTrip times one empty dispatch: encode, submit, wait.
func (l *launcher) roundTrip() (float64, error) {
	ds := dispatch{k: l.ks.kernels[launchEntry], bg: l.bg, x: 1, y: 1}
	start := time.Now()
	if err := l.d.run(work(ds, 1)); err != nil {
		return 0, err
	}
	l.count++
	return time.Since(start).Seconds(), nil
}

// checkCounter reads the counter back: it must equal the dispatches sent.
func (l *launcher) checkCounter() error {
	var got uint32
	err := l.d.readBack(l.counter, 16, func(off uint64, chunk []byte) error {
		got = binary.LittleEndian.Uint32(l.view("counter", off, chunk))
		return nil
	})
	if err != nil {
		return err
	}
	if want := uint32(l.count); got != want {
		return fmt.Errorf("%w: the counter kernel ran %d times, want %d", ErrCheckFailed, got, want)
	}
	return nil
}

// upload times one 1 MiB write (new contents each time) until the queue is
// done, then reads the buffer back, outside the timed region, and compares.
func (l *launcher) upload() (float64, error) {
	fillUpload(l.data, uint32(l.uploads))
	start := time.Now()
	if err := l.d.upload(l.up, 0, l.data); err != nil {
		return 0, err
	}
	if err := l.d.submitWait(); err != nil {
		return 0, err
	}
	t := time.Since(start).Seconds()
	err := l.d.readBack(l.up, uploadBytes, func(off uint64, chunk []byte) error {
		if !bytes.Equal(l.view("upload", off, chunk), l.data[off:off+uint64(len(chunk))]) {
			return fmt.Errorf("%w: upload %d read back differs from what was written", ErrCheckFailed, l.uploads)
		}
		return nil
	})
	l.uploads++
	return t, err
}

// fillUpload writes distinct words for upload number k into data.
func fillUpload(data []byte, k uint32) {
	for i := 0; i+4 <= len(data); i += 4 {
		binary.LittleEndian.PutUint32(data[i:], uint32(i)*0x9E3779B1+k*0x85EBCA6B+1)
	}
}

// view applies the test hook, if any, to read-back data.
func (l *launcher) view(what string, off uint64, chunk []byte) []byte {
	if l.tamper == nil {
		return chunk
	}
	return l.tamper(what, off, append([]byte(nil), chunk...))
}

// sampled runs once for warmUp (discarded), then takes as many samples as
// fit lim's budget at the median warm-up time, within its bounds.
func (l *launcher) sampled(ctx context.Context, lim calibrationLimits, once func() (float64, error)) (schema.Stat, error) {
	var warm []float64
	for start := time.Now(); time.Since(start) < warmUp; {
		if err := ctx.Err(); err != nil {
			return schema.Stat{}, err
		}
		t, err := once()
		if err != nil {
			return schema.Stat{}, err
		}
		warm = append(warm, t)
	}
	n := samplesFor(median(warm), lim)
	samples := make([]float64, 0, n)
	for i := 0; i < n; i++ {
		if err := ctx.Err(); err != nil {
			return schema.Stat{}, err
		}
		t, err := once()
		if err != nil {
			return schema.Stat{}, err
		}
		samples = append(samples, t)
	}
	return newStat(samples)
}

// emptyRoundTripS is the median of n checked empty-dispatch round trips,
// after a short warm-up; calibration uses it as the launch overhead.
func (d *Device) emptyRoundTripS(ctx context.Context, n int) (float64, error) {
	l, err := newLauncher(d, nil)
	if err != nil {
		return 0, err
	}
	defer l.release()
	samples := make([]float64, 0, n)
	for i := 0; i < 2*n; i++ { // the first n are warm-up
		if err := ctx.Err(); err != nil {
			return 0, err
		}
		t, err := l.roundTrip()
		if err != nil {
			return 0, err
		}
		if i >= n {
			samples = append(samples, t)
		}
	}
	if err := l.checkCounter(); err != nil {
		return 0, err
	}
	return median(samples), nil
}

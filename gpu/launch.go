package gpu

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"time"

	"github.com/cogentcore/webgpu/wgpu"

	"github.com/everycycle/appraise/internal/measure/stats"
	"github.com/everycycle/appraise/schema"
)

// LaunchResult is the launch overhead of a device.
type LaunchResult struct {
	// EmptyDispatchRoundTripS is the time to encode, submit and wait for one
	// dispatch of a one-invocation kernel, in seconds.
	EmptyDispatchRoundTripS schema.Stat
	// Upload1MiBS is the time to move 1 MiB from the host into a device
	// buffer by UploadPath, from the first call until the queue reports the
	// copy done, in seconds.
	Upload1MiBS schema.Stat
	// Timing is how both were timed: the host's monotonic clock around the
	// host-side work and the wait for the queue.
	Timing schema.TimingMethod
	// DispatchPath names how the round trip was run: "dispatch." and the
	// wait ("poll-sleep": polls with sleeps between them; "poll-spin":
	// polls back to back; wait.go), the faster of the two in a trial on
	// this device.
	DispatchPath string
	// UploadPath names how the 1 MiB went up, the fastest in a trial on this
	// device: "write-buffer" (Queue.WriteBuffer from host memory) or
	// "mapped-staging" (the data already in a mapped MapWrite staging
	// buffer, as in a pinned host buffer: unmap, copy, submit), then "." and
	// the wait.
	UploadPath string
	// Dispatches is the number of dispatches the kernel's counter confirmed,
	// warm-up included.
	Dispatches uint64
	// UploadsChecked is the number of timed uploads read back and compared
	// byte for byte with what was sent.
	UploadsChecked int
	// EmptyDispatchTrialS and Upload1MiBTrialS are the kept paths' median
	// times in the trial that chose them: what a rule choosing between
	// this and another probe's path weighs (probe.LinkTrial), so that the
	// figures, sampled after the trial, are never weighed.
	EmptyDispatchTrialS, Upload1MiBTrialS float64
}

// uploadBytes is the size of the upload whose latency is measured.
const uploadBytes = 1 << 20

// launchEntry is the counter kernel's entry point in wgsl/launch.wgsl.
const launchEntry = "touch"

// launchTrial is how the launch methods are tried against each other.
func launchTrial() trial { return trial{warm: 5, runs: 21} }

// launchLimits bound the number of launch samples.
func launchLimits(quick bool) calibrationLimits {
	if quick {
		return calibrationLimits{BudgetS: 0.15, MinSamples: 20, MaxSamples: 300}
	}
	return calibrationLimits{BudgetS: 0.5, MinSamples: 30, MaxSamples: 1000}
}

// MeasureLaunch measures the empty-dispatch round trip and the latency of a
// 1 MiB host-to-device upload. For each it first tries every way WebGPU
// offers (blocking or spinning waits; WriteBuffer or a mapped staging
// buffer) in a short interleaved trial, keeps the fastest, then samples
// that afresh after a warm-up, with as many samples as fit a short budget.
// The dispatch kernel counts its runs and every upload, trial ones
// included, is read back outside the timed region, so a lost dispatch or a
// corrupt upload returns an error wrapping ErrCheckFailed.
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
	dm, emptyTrial, empty, err := l.fastestSampled(ctx, lim, l.dispatchMethods())
	if err == nil {
		err = l.checkCounter()
	}
	if err != nil {
		return LaunchResult{}, fmt.Errorf("launch: empty dispatch: %w", err)
	}
	d.progress("launch: 1 MiB upload")
	um, upTrial, up, err := l.fastestSampled(ctx, lim, l.uploadMethods())
	if err != nil {
		return LaunchResult{}, fmt.Errorf("launch: 1 MiB upload: %w", err)
	}
	return LaunchResult{EmptyDispatchRoundTripS: empty, Upload1MiBS: up,
		Timing: schema.TimingHostWallClock, DispatchPath: dm.path, UploadPath: um.path,
		Dispatches: l.count, UploadsChecked: l.uploads, EmptyDispatchTrialS: emptyTrial, Upload1MiBTrialS: upTrial}, nil
}

// method is one way of doing a timed operation: once does it and returns
// its duration in seconds.
type method struct {
	path string
	once func() (float64, error)
}

// waitModes are the two ways of waiting, in the order they are tried.
func waitModes() []waitMode { return []waitMode{waitBlock, waitSpin} }

// dispatchMethods are the round trip waited for each way.
func (l *launcher) dispatchMethods() []method {
	var ms []method
	for _, w := range waitModes() {
		ms = append(ms, method{"dispatch." + w.String(), func() (float64, error) { return l.roundTrip(w) }})
	}
	return ms
}

// uploadMethods are the two upload paths, each waited for each way.
func (l *launcher) uploadMethods() []method {
	var ms []method
	for _, w := range waitModes() {
		ms = append(ms,
			method{"write-buffer." + w.String(), func() (float64, error) { return l.writeUpload(w) }},
			method{"mapped-staging." + w.String(), func() (float64, error) { return l.stagedUpload(w) }})
	}
	return ms
}

// fastestSampled picks the fastest of ms in a trial and samples it,
// returning it with its trial median and its samples.
func (l *launcher) fastestSampled(ctx context.Context, lim calibrationLimits, ms []method) (method, float64, schema.Stat, error) {
	i, trialS, err := fastest(ctx, ms, launchTrial())
	if err != nil {
		return method{}, 0, schema.Stat{}, err
	}
	st, err := l.sampled(ctx, lim, ms[i].once)
	return ms[i], trialS, st, err
}

// trial says how methods are tried against each other.
type trial struct {
	// warm and runs are the discarded and the timed runs of each method.
	warm, runs int
	// prune, when positive, drops a method whose first timed run took
	// more than prune times the fastest first timed run.
	prune float64
}

// fastest runs the methods tr.warm+tr.runs times each, round robin so that
// drift in the machine hits them alike, and returns the index of the one
// whose timed runs have the lowest median, with that median. Trial times
// are never signed: the caller samples the winner afresh, and the median
// serves only a later choice against another probe (probe.LinkTrial).
func fastest(ctx context.Context, ms []method, tr trial) (int, float64, error) {
	times := make([][]float64, len(ms))
	alive := make([]bool, len(ms))
	for i := range alive {
		alive[i] = true
	}
	for r := 0; r < tr.warm+tr.runs; r++ {
		for i, m := range ms {
			if !alive[i] {
				continue
			}
			if err := ctx.Err(); err != nil {
				return 0, 0, err
			}
			t, err := m.once()
			if err != nil {
				return 0, 0, fmt.Errorf("%s: %w", m.path, err)
			}
			if r >= tr.warm {
				times[i] = append(times[i], t)
			}
		}
		if r == tr.warm && tr.prune > 0 {
			prune(times, alive, tr.prune)
		}
	}
	best := lowestMedian(times, alive)
	return best, stats.Median(times[best]), nil
}

// prune marks as dead the methods whose first time exceeds factor times
// the smallest first time.
func prune(times [][]float64, alive []bool, factor float64) {
	least := math.Inf(1)
	for i, ts := range times {
		if alive[i] {
			least = min(least, ts[0])
		}
	}
	for i, ts := range times {
		alive[i] = alive[i] && ts[0] <= factor*least
	}
}

// lowestMedian is the index of the live series with the lowest median
// (all are live when alive is nil).
func lowestMedian(times [][]float64, alive []bool) int {
	best := -1
	for i, ts := range times {
		if (alive == nil || alive[i]) && (best < 0 || stats.Median(ts) < stats.Median(times[best])) {
			best = i
		}
	}
	return best
}

// launcher runs the one-invocation counter kernel and the 1 MiB uploads.
type launcher struct {
	d       *Device
	tamper  tamperFunc
	ks      *kernelSet
	counter *wgpu.Buffer
	bg      *wgpu.BindGroup
	up      *wgpu.Buffer
	staging *wgpu.Buffer // MapWrite|CopySrc, mapped between uploads
	check   *wgpu.Buffer // MapRead|CopyDst: each upload read back into it
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
	if l.up, err = l.d.storageBuffer("upload", uploadBytes); err != nil {
		return err
	}
	if l.staging, err = l.d.newBuffer("upload-staging", uploadBytes, wgpu.BufferUsageMapWrite|wgpu.BufferUsageCopySrc); err != nil {
		return err
	}
	if l.check, err = l.d.newBuffer("upload-check", uploadBytes, wgpu.BufferUsageMapRead|wgpu.BufferUsageCopyDst); err != nil {
		return err
	}
	return l.d.mapWait(l.staging, wgpu.MapModeWrite, uploadBytes, waitBlock)
}

// release frees what the launcher created. Safe on a partial launcher.
func (l *launcher) release() {
	if l.check != nil {
		l.check.Release()
	}
	if l.staging != nil {
		l.staging.Release()
	}
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

// roundTrip times one empty dispatch: encode, submit, wait the way w says.
func (l *launcher) roundTrip(w waitMode) (float64, error) {
	ds := dispatch{k: l.ks.kernels[launchEntry], bg: l.bg, x: 1, y: 1}
	start := time.Now()
	if err := l.d.runBy(w, work(ds, 1)); err != nil {
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

// writeUpload times one 1 MiB Queue.WriteBuffer from host memory (new
// contents each time) until the queue, waited for the way w says, is done;
// then it checks the upload.
func (l *launcher) writeUpload(w waitMode) (float64, error) {
	fillUpload(l.data, uint32(l.uploads))
	start := time.Now()
	if err := l.d.upload(l.up, 0, l.data); err != nil {
		return 0, err
	}
	if err := l.d.submitWaitBy(w); err != nil {
		return 0, err
	}
	t := time.Since(start).Seconds()
	return t, l.checkUpload()
}

// stagedUpload times one 1 MiB upload from the mapped staging buffer, which
// holds new contents each time before the clock starts (as a pinned host
// buffer would): unmap, record and submit the copy, wait the way w says.
// Then, untimed, it maps the staging buffer again and checks the upload.
func (l *launcher) stagedUpload(w waitMode) (float64, error) {
	fillUpload(l.data, uint32(l.uploads))
	copy(l.staging.GetMappedRange(0, uploadBytes), l.data)
	start := time.Now()
	if err := unmap(l.staging); err != nil {
		return 0, err
	}
	err := l.d.runBy(w, func(enc *wgpu.CommandEncoder) error {
		return copyBuffer(enc, l.staging, 0, l.up, uploadBytes)
	})
	t := time.Since(start).Seconds()
	if err == nil {
		err = l.d.mapWait(l.staging, wgpu.MapModeWrite, uploadBytes, w)
	}
	if err != nil {
		return 0, err
	}
	return t, l.checkUpload()
}

// checkUpload reads the upload buffer back, through the launcher's own
// read-back buffer (made once: a new one per upload cost the driver an
// allocation each), and compares it with l.data.
func (l *launcher) checkUpload() error {
	err := l.d.run(func(enc *wgpu.CommandEncoder) error { return copyBuffer(enc, l.up, 0, l.check, uploadBytes) })
	if err == nil {
		err = l.d.mapRead(l.check, uploadBytes, func(b []byte) error {
			if !bytes.Equal(l.view("upload", 0, b), l.data) {
				return fmt.Errorf("%w: upload %d read back differs from what was written", ErrCheckFailed, l.uploads)
			}
			return nil
		})
	}
	l.uploads++
	return err
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
	dur := l.d.warmUpTime(warmUp)
	for start := time.Now(); len(warm) == 0 || time.Since(start) < dur; {
		if err := ctx.Err(); err != nil {
			return schema.Stat{}, err
		}
		t, err := once()
		if err != nil {
			return schema.Stat{}, err
		}
		warm = append(warm, t)
	}
	n := samplesFor(stats.Median(warm), lim)
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
	return stats.Summarize(samples)
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
		t, err := l.roundTrip(waitBlock) // as the probes' own submissions wait
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
	return stats.Median(samples), nil
}

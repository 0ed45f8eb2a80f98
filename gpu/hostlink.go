package gpu

import (
	"context"
	"fmt"

	"github.com/everycycle/appraise/internal/measure/stats"
	"github.com/everycycle/appraise/schema"
)

// Transfer is one direction of the host link, measured.
type Transfer struct {
	// BytesPerS is TransferBytes over each sample's time, in bytes/s
	// (decimal: 1e9 bytes/s is 1 GB/s).
	BytesPerS schema.Stat
	// TransferBytes is the size of one timed transfer, in bytes.
	TransferBytes uint64
	// Path names how the data moved, the fastest way in a trial on this
	// device: for host → device "mapped-staging" (the data already in a
	// mapped MapWrite staging buffer, as in a pinned host buffer: unmap,
	// copy to the device buffer, submit) or "write-buffer"
	// (Queue.WriteBuffer from host memory, submit); for device → host
	// "mapped-readback" (copy into a MapRead buffer, submit, map). Then "."
	// and the wait: "poll-sleep" (polls with sleeps between them) or
	// "poll-spin" (polls back to back; wait.go).
	Path string
	// Timing is how samples were timed: the host's monotonic clock from the
	// first call of the path until the queue reported the copy done (and,
	// device → host, the buffer mapped for reading).
	Timing schema.TimingMethod
	// Checked is the number of bytes that arrived and were compared with
	// what was sent, over every transfer timed (trials included).
	Checked uint64
	// TrialBytesPerS is Path's rate in the trial that chose it (TransferBytes
	// over the median of its trial rounds): what a rule choosing between
	// this and another probe's path weighs (probe.LinkTrial), so that
	// BytesPerS, sampled after the trial, is never weighed.
	TrialBytesPerS float64
}

// HostLinkResult is the host link in both directions.
type HostLinkResult struct {
	// HostToDevice is host memory → a device-local storage buffer.
	HostToDevice Transfer
	// DeviceToHost is a device-local storage buffer → host memory.
	DeviceToHost Transfer
}

// Sizing of the host-link transfers.
const (
	// linkMaxBytes is the transfer size when memory allows: large enough
	// that fixed costs (submit, wait, map) are a small part of it.
	linkMaxBytes = 256 << 20
	// linkSoftwareBytes is the transfer size on a software adapter, whose
	// "device memory" is host RAM: every path copies each byte on the
	// host's cores, which a 64 MiB transfer (128 MiB moved per round)
	// still takes past the host's caches, at a quarter of the cost.
	linkSoftwareBytes = 64 << 20
	// linkMinBytes is the smallest transfer the probe accepts.
	linkMinBytes = 1 << 20
	// linkBuffers is how many transfer-sized buffers exist at once: the
	// device buffer, the upload and download staging buffers, and the
	// staging buffer wgpu makes inside Queue.WriteBuffer.
	linkBuffers = 4
	// linkStampStride: each round writes a new word every linkStampStride
	// bytes, so data left over from an earlier round cannot pass the check.
	linkStampStride = 4096
)

// The two host → device paths.
const (
	pathStaged = "mapped-staging"
	pathWrite  = "write-buffer"
)

// linkPathTrial is how the upload paths are tried: fewer runs than
// launch's, as each round is large, and a path more than 3x slower than the
// best in its first timed round is dropped.
func linkPathTrial() trial { return trial{warm: 1, runs: 2, prune: 3} }

// linkWaitTrial is how the waits are tried on the chosen path.
func linkWaitTrial() trial { return trial{warm: 1, runs: 2} }

// linkTransferBytes is the size of one host-link transfer: linkMaxBytes
// (linkSoftwareBytes on a software adapter), halved until linkBuffers of
// it fit memLimit and one fits maxBuffer. It fails below linkMinBytes.
func linkTransferBytes(memLimit, maxBuffer uint64, software bool) (uint64, error) {
	n := uint64(linkMaxBytes)
	if software {
		n = linkSoftwareBytes
	}
	for n >= linkMinBytes && (n > maxBuffer || linkBuffers*n > memLimit) {
		n /= 2
	}
	if n < linkMinBytes {
		return 0, fmt.Errorf("gpu: host link: no transfer of at least %d bytes fits a memory limit of %d and a max buffer of %d bytes",
			linkMinBytes, memLimit, maxBuffer)
	}
	return n, nil
}

// linkLimits bound the number of host-link samples.
func linkLimits(quick bool) calibrationLimits {
	if quick {
		return calibrationLimits{BudgetS: 0.3, MinSamples: 3, MaxSamples: 10}
	}
	return calibrationLimits{BudgetS: 1.5, MinSamples: 5, MaxSamples: 30}
}

// MeasureHostLink measures host → device and device → host bandwidth with
// transfers of up to 256 MiB (64 MiB on a software adapter; smaller when Options.MemoryLimit or the
// device's buffer limit require). Each round uploads the host's data, then
// downloads it again, and compares what came back with what was sent,
// outside the timed regions; each round changes a word in every 4 KiB so
// stale data fails. The upload path and both waits are chosen by a short
// trial on the device (see Transfer.Path); then rounds of the chosen paths
// are sampled, as many as fit a short budget. A mismatch returns an error
// wrapping ErrCheckFailed.
func MeasureHostLink(ctx context.Context, d *Device) (HostLinkResult, error) {
	return measureHostLink(ctx, d, nil)
}

// measureHostLink is MeasureHostLink with a test hook.
func measureHostLink(ctx context.Context, d *Device, tamper tamperFunc) (HostLinkResult, error) {
	n, err := linkTransferBytes(d.memLimit, d.limits.MaxBufferBytes, d.info.Software)
	if err != nil {
		return HostLinkResult{}, err
	}
	l, err := newLink(d, n, tamper)
	if err != nil {
		return HostLinkResult{}, fmt.Errorf("host link: %w", err)
	}
	defer l.release()
	res, err := l.measure(ctx, linkLimits(d.opts.Quick))
	if err != nil {
		return HostLinkResult{}, fmt.Errorf("host link: %w", err)
	}
	return res, nil
}

// measure chooses the upload path, then the waits, then samples rounds of
// the chosen methods.
func (l *link) measure(ctx context.Context, lim calibrationLimits) (HostLinkResult, error) {
	l.d.progress("host link: choosing the paths (%d MiB transfers)", l.n>>20)
	path, err := l.choosePath(ctx)
	if err != nil {
		return HostLinkResult{}, err
	}
	upW, downW, upTrial, downTrial, err := l.chooseWaits(ctx, path)
	if err != nil {
		return HostLinkResult{}, err
	}
	up, down := l.uploadMethod(path, upW), l.downloadMethod(downW)
	l.d.progress("host link: sampling %s and %s", up.path, down.path)
	ups, downs, err := l.sample(ctx, lim, up, down)
	if err != nil {
		return HostLinkResult{}, err
	}
	h2d, err := l.transfer(up.path, ups, upTrial)
	if err != nil {
		return HostLinkResult{}, err
	}
	d2h, err := l.transfer(down.path, downs, downTrial)
	return HostLinkResult{HostToDevice: h2d, DeviceToHost: d2h}, err
}

// choosePath tries both upload paths, with sleeping waits, in checked
// rounds and returns the faster.
func (l *link) choosePath(ctx context.Context) (string, error) {
	paths := []string{pathStaged, pathWrite}
	ms := make([]method, len(paths))
	for i, p := range paths {
		up, down := l.uploadMethod(p, waitBlock), l.downloadMethod(waitBlock)
		ms[i] = method{p, func() (float64, error) {
			upS, _, err := l.round(up, down)
			return upS, err
		}}
	}
	i, _, err := fastest(ctx, ms, linkPathTrial())
	return paths[i], err
}

// chooseWaits runs checked rounds of path with each wait in both
// directions, round robin, and returns the faster wait for each direction
// with the median time of its trial rounds.
func (l *link) chooseWaits(ctx context.Context, path string) (up, down waitMode, upS, downS float64, err error) {
	waits, tr := waitModes(), linkWaitTrial()
	upT, downT := make([][]float64, len(waits)), make([][]float64, len(waits))
	for r := 0; r < tr.warm+tr.runs; r++ {
		for i, w := range waits {
			if err := ctx.Err(); err != nil {
				return 0, 0, 0, 0, err
			}
			u, d, err := l.round(l.uploadMethod(path, w), l.downloadMethod(w))
			if err != nil {
				return 0, 0, 0, 0, err
			}
			if r >= tr.warm {
				upT[i], downT[i] = append(upT[i], u), append(downT[i], d)
			}
		}
	}
	ui, di := lowestMedian(upT, nil), lowestMedian(downT, nil)
	return waits[ui], waits[di], stats.Median(upT[ui]), stats.Median(downT[di]), nil
}

// sample times one discarded round, then as many rounds as fit lim's
// budget at that round's time, within lim's bounds.
func (l *link) sample(ctx context.Context, lim calibrationLimits, up, down method) (ups, downs []float64, err error) {
	upS, downS, err := l.round(up, down)
	if err != nil {
		return nil, nil, err
	}
	n := samplesFor(upS+downS, lim)
	for i := 0; i < n; i++ {
		if err := ctx.Err(); err != nil {
			return nil, nil, err
		}
		if upS, downS, err = l.round(up, down); err != nil {
			return nil, nil, err
		}
		ups, downs = append(ups, upS), append(downs, downS)
	}
	return ups, downs, nil
}

// transfer summarises one direction's sample times as a Transfer, whose
// path took trialS (the median of its trial rounds) in the trial.
func (l *link) transfer(path string, times []float64, trialS float64) (Transfer, error) {
	rates := make([]float64, len(times))
	for i, t := range times {
		rates[i] = float64(l.n) / t
	}
	st, err := stats.Summarize(rates)
	return Transfer{BytesPerS: st, TransferBytes: l.n, Path: path,
		Timing: schema.TimingHostWallClock, Checked: l.checked, TrialBytesPerS: float64(l.n) / trialS}, err
}

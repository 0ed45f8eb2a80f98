//go:build explore

package linkpaths

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"time"

	vulkan "github.com/everycycle/appraise/coopmat/vk"
	"github.com/everycycle/appraise/schema"
)

// TransferResult holds the figures of MeasureTransfer, every one checked:
// the host link in both directions through raw Vulkan copies, the latency
// of a 1 MiB upload and the round trip of an empty compute dispatch.
type TransferResult struct {
	// HostToDevice is a mapped host buffer → a device-local buffer.
	HostToDevice Direction `json:"host_to_device"`
	// DeviceToHost is a device-local buffer → a mapped host buffer.
	DeviceToHost Direction `json:"device_to_host"`
	// TransferBytes is the size of one timed bulk transfer, in bytes.
	TransferBytes uint64 `json:"transfer_bytes"`
	// Upload1MiB is the time to move 1 MiB (1,048,576 bytes) of fresh data
	// from host memory to a device-local buffer, in seconds, from the
	// host's view: on a queue route, the copy into a persistently mapped
	// staging buffer, the submit of a pre-recorded copy (or pull kernel)
	// and the wait for its fence; on the host-write route, the host's
	// stores into device-mapped memory until every writer has read its
	// last word back from the device.
	Upload1MiB schema.Stat `json:"upload_1mib_s"`
	// Upload1MiBPinned is Upload1MiB with the data already in the mapped
	// staging buffer when the clock starts, as in a pinned host buffer
	// (CUDA's pinned memory, WebGPU's mapped staging): submit until the
	// fence signalled, in seconds (on the host-write route, the same
	// stores as Upload1MiB, from host memory).
	Upload1MiBPinned schema.Stat `json:"upload_1mib_pinned_s"`
	// EmptySubmit is the round trip of a pre-recorded one-invocation
	// compute dispatch, in seconds: submit until its fence signalled, by the
	// host clock.
	EmptySubmit schema.Stat `json:"empty_submit_s"`
	// CheckedWords is the number of 32-bit words compared with what was
	// sent, over every bulk round, every 1 MiB upload and the dispatch
	// counter.
	CheckedWords uint64 `json:"checked_words"`
	// UploadPath names the 1 MiB upload's path, the fastest in a trial on
	// this device: "vulkan-host-", the route and the staging memory (as in
	// Direction.Path), "." and the wait ("fence-wait": vkWaitForFences;
	// "fence-spin": vkGetFenceStatus until signalled).
	UploadPath string `json:"upload_path"`
	// UploadPinnedPath names Upload1MiBPinned's path likewise, starting
	// "vulkan-pinned-".
	UploadPinnedPath string `json:"upload_pinned_path"`
	// SubmitPath names the empty submit's path, the faster wait in a trial:
	// "vulkan-dispatch." and the wait, as in UploadPath.
	SubmitPath string `json:"submit_path"`
}

// TransferPaths names the path of each figure of a TransferResult.
type TransferPaths struct {
	HostToDevice, DeviceToHost, Upload, UploadPinned, Submit string
}

// Paths returns the paths r's figures were measured on.
func (r TransferResult) Paths() TransferPaths {
	return TransferPaths{HostToDevice: r.HostToDevice.Path, DeviceToHost: r.DeviceToHost.Path,
		Upload: r.UploadPath, UploadPinned: r.UploadPinnedPath, Submit: r.SubmitPath}
}

// found checks that res measured every figure on the path p names (the
// split route's on any share).
func (p TransferPaths) found(res TransferResult) error {
	for _, f := range []struct{ figure, want, got string }{
		{"host to device", p.HostToDevice, res.HostToDevice.Path}, {"device to host", p.DeviceToHost, res.DeviceToHost.Path},
		{"1 MiB upload", p.Upload, res.UploadPath}, {"pinned 1 MiB upload", p.UploadPinned, res.UploadPinnedPath},
		{"empty submit", p.Submit, res.SubmitPath},
	} {
		if f.got != f.want && !(isSplit(f.want) && isSplit(f.got)) {
			return fmt.Errorf("%s: path %q asked for, not offered (measured %q)", f.figure, f.want, f.got)
		}
	}
	return nil
}

// errNotAsked says that TransferOptions.Only names another path.
var errNotAsked = errors.New("path not asked for")

// asked reports whether a figure measured on path is wanted: every path is
// without Only, else the one Only names (want).
func (o TransferOptions) asked(path, want string) bool {
	return o.Only == nil || path == want
}

// Direction is one direction of the bulk host link, on the fastest route.
type Direction struct {
	// BytesPerS is the rate per sample (decimal: 1e9 bytes/s is 1 GB/s).
	BytesPerS schema.Stat `json:"bytes_per_s"`
	// Path names the path: "vulkan-mapped-", the route ("copy." and the
	// queue whose copy command moved the data: "compute-queue";
	// "transfer-queue", a transfer-only family, the device's copy
	// engines; or "pull.compute-queue" and "push.compute-queue", a kernel
	// whose invocations load host memory into device memory or store
	// device memory into host memory), "." and the host memory ("host-cached":
	// HOST_CACHED, as pinned memory; "host-uncached": write-combined;
	// "host-imported": memory we map, 2 MiB aligned and advised for
	// transparent huge pages, imported through
	// VK_EXT_external_memory_host).
	Path string `json:"path"`
	// Timing is how its copies were timed: GPU timestamps around each copy
	// when the queue has them, else the host clock from submit until the
	// fence signalled.
	Timing schema.TimingMethod `json:"timing"`
}

// TransferOptions steer MeasureTransfer. The zero value measures 256 MiB
// transfers (fewer when the device has less memory) with full sample counts.
type TransferOptions struct {
	// Bytes is the size of one bulk transfer: a multiple of 4096 and at
	// least 1 MiB. 0 picks 256 MiB, halved until four of it fit the
	// device-local heap (or its budget).
	Bytes uint64
	// Quick takes fewer samples.
	Quick bool
	// NoKernelRoutes leaves out the bulk routes whose moves run the
	// device's own kernel (pull and push, and the split, a pull beside the
	// host's stores); the copy commands and the host's stores into
	// device-mapped memory are measured as always.
	NoKernelRoutes bool
	// Warmup is the sustained load before each timed part (a route's bulk
	// moves, a latency trial, its samples); 0 means MinWarmup. A software
	// adapter, which has no clocks of its own to bring up, may take less.
	Warmup time.Duration
	// Progress, when set, is told each step as it starts (a route's bulk
	// moves, a latency trial), so that a caller can show the step running.
	Progress func(step string)
	// Only, when set, measures each figure on the path it names alone,
	// without the trial of the others: the re-measurement of the paths an
	// earlier MeasureTransfer chose (TransferResult.Paths). The split
	// route tries its shares again, so its path may name another share.
	Only *TransferPaths

	// tamper, set by tests only, alters data read back from the device
	// before its check; what is "transfer", "upload" or "submit".
	tamper func(what string, data []byte)
}

// warmup is o.Warmup, or MinWarmup when it is 0.
func (o TransferOptions) warmup() time.Duration {
	if o.Warmup > 0 {
		return o.Warmup
	}
	return vulkan.MinWarmup
}

// progress tells o.Progress, when set, the step starting.
func (o TransferOptions) progress(format string, args ...any) {
	if o.Progress != nil {
		o.Progress(fmt.Sprintf(format, args...))
	}
}

// Sizes and sample counts of MeasureTransfer.
const (
	transferMaxBytes = 256 << 20
	transferMinBytes = 1 << 20
	transferAlign    = 4096
	// transferSamples and transferQuickSamples are the bulk samples kept.
	transferSamples      = 7
	transferQuickSamples = 3
	// latencyWarm uploads or submits are discarded before the samples.
	latencyWarm         = 20
	latencySamples      = 101
	latencyQuickSamples = 21
	latencyUploadBytes  = 1 << 20
	transferPathPrefix  = "vulkan-mapped-"
	uploadPathPrefix    = "vulkan-host-"
	pinnedPathPrefix    = "vulkan-pinned-"
	dispatchPathPrefix  = "vulkan-dispatch."
	transferWarmCopies  = 4 // round trips per warm-up submission
	// transferParallelMinW is the fewest words filled or compared by
	// several goroutines: above 1 MiB, so that the fresh data of a 1 MiB
	// upload is written by the goroutine that copies it.
	transferParallelMinW = 1 << 20
)

// MeasureTransfer measures the host link through raw Vulkan: bulk moves
// between one persistently mapped host buffer and one device-local buffer
// in both directions (after at least TransferOptions.Warmup of them) on every route
// (copy commands on the compute queue, and on a transfer-only queue when
// the device has one; a kernel on the compute queue that pulls host memory
// in or pushes device memory out), each direction keeping the fastest; the
// latency of a 1 MiB upload (from host memory, and from pinned memory) on
// the fastest route; and the round trip of an empty dispatch. Every round
// of bulk moves sends a new pattern and poisons the host buffer before
// moving it back, and every upload and dispatch is read back outside the
// timed regions; a mismatch returns an error wrapping ErrCheckFailed.
func MeasureTransfer(ctx context.Context, d *vulkan.Device, o TransferOptions) (TransferResult, error) {
	n, err := transferBytes(o.Bytes, d.Info)
	if err != nil {
		return TransferResult{}, err
	}
	res := TransferResult{TransferBytes: n}
	if err := measureBulk(ctx, d, n, o, &res); err != nil {
		return TransferResult{}, fmt.Errorf("coopmat: transfer: %w", err)
	}
	if err := measureUpload(ctx, d, o, &res); err != nil {
		return TransferResult{}, fmt.Errorf("coopmat: transfer: 1 MiB upload: %w", err)
	}
	if err := measureSubmit(ctx, d, o, &res); err != nil {
		return TransferResult{}, fmt.Errorf("coopmat: transfer: empty submit: %w", err)
	}
	if o.Only != nil {
		if err := o.Only.found(res); err != nil {
			return TransferResult{}, fmt.Errorf("coopmat: transfer: %w", err)
		}
	}
	return res, nil
}

// transferBytes checks a requested transfer size, or picks one: 256 MiB,
// halved until four of it fit the device-local heap (its budget if known).
func transferBytes(want uint64, info vulkan.DeviceInfo) (uint64, error) {
	if want != 0 {
		if want < transferMinBytes || want%transferAlign != 0 {
			return 0, fmt.Errorf("coopmat: transfer: %d bytes: want a multiple of %d, at least %d", want, transferAlign, transferMinBytes)
		}
		return want, nil
	}
	limit := info.DeviceLocalBudgetBytes
	if limit == 0 {
		limit = info.DeviceLocalBytes
	}
	n := uint64(transferMaxBytes)
	for n > transferMinBytes && 4*n > limit {
		n /= 2
	}
	if 4*n > limit {
		return 0, fmt.Errorf("coopmat: transfer: device-local memory of %d bytes holds no %d-byte transfer", limit, n)
	}
	return n, nil
}

// poisonWord overwrites the host buffer before a download. Its low bit is
// clear, so it is no pattern word.
const poisonWord = 0xdeadbeee

// patternWord is word i of round r's pattern (patternAt with r's key):
// every word changes from round to round (with overwhelming likelihood),
// neighbours differ, and none equals poisonWord.
func patternWord(r uint32, i int) uint32 { return patternAt(patternKey(r), i) }

// patternKey is round r's key: a 64-bit mix of r (MurmurHash3's
// finaliser), so that the keys of consecutive rounds differ in about half
// their bits.
func patternKey(r uint32) uint64 {
	x := uint64(r) + 0x9e3779b97f4a7c15
	x ^= x >> 33
	x *= 0xff51afd7ed558ccd
	x ^= x >> 33
	x *= 0xc4ceb9fe1a85ec53
	return x ^ x>>33
}

// patternAt is word i of the pattern with key k: the high half of
// (i XOR k) times an odd constant (a bijection of 64-bit words, so under
// one key no two indices give the same product), with the low bit set. One
// multiply per word: the host fills and checks every word of every
// transfer, and this is the cost it pays per word.
func patternAt(k uint64, i int) uint32 {
	return uint32((uint64(i)^k)*0x9e3779b97f4a7c15>>32) | 1
}

// fillPattern writes round r's pattern into w.
func fillPattern(w []uint32, r uint32) {
	k := patternKey(r)
	_ = parallel(len(w), func(lo, hi int) error {
		for i := lo; i < hi; i++ {
			w[i] = patternAt(k, i)
		}
		return nil
	})
}

// fillWord writes v into every word of w.
func fillWord(w []uint32, v uint32) {
	_ = parallel(len(w), func(lo, hi int) error {
		for i := lo; i < hi; i++ {
			w[i] = v
		}
		return nil
	})
}

// checkPattern compares w with round r's pattern; a mismatch is an error
// wrapping ErrCheckFailed.
func checkPattern(w []uint32, r uint32) error {
	k := patternKey(r)
	return parallel(len(w), func(lo, hi int) error {
		for i := lo; i < hi; i++ {
			if want := patternAt(k, i); w[i] != want {
				return fmt.Errorf("word %d is %#08x, want %#08x: %w", i, w[i], want, vulkan.ErrCheckFailed)
			}
		}
		return nil
	})
}

// parallel runs fn over [0, n) split into one range per CPU (one range
// when n is small) and returns the first range's error.
func parallel(n int, fn func(lo, hi int) error) error {
	parts := 1
	if n >= transferParallelMinW {
		parts = runtime.GOMAXPROCS(0)
	}
	errs := make([]error, parts)
	var wg sync.WaitGroup
	for p := range parts {
		wg.Go(func() { errs[p] = fn(p*n/parts, (p+1)*n/parts) })
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

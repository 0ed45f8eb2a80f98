package link

import (
	"cmp"
	"context"
	"fmt"
	"runtime"
	"sync"
	"time"

	vulkan "github.com/everycycle/appraise/coopmat/vk"
	"github.com/everycycle/appraise/schema"
)

// TransferResult holds the figures of MeasureTransfer, every one checked:
// the host link in both directions, the latency of a 1 MiB upload from
// pinned memory and the round trip of an empty compute dispatch, each on
// the path its family's trial kept (rule.go).
type TransferResult struct {
	// HostToDevice is host memory → a device-local buffer, in bytes/s
	// (decimal: 1e9 bytes/s is 1 GB/s).
	HostToDevice Family
	// DeviceToHost is a device-local buffer → host-cached memory, in
	// bytes/s.
	DeviceToHost Family
	// TransferBytes is the size of one timed bulk transfer, in bytes.
	TransferBytes uint64
	// Upload1MiBPinned is the time to move 1 MiB (1,048,576 bytes) already
	// in host memory (as in CUDA's pinned memory, WebGPU's mapped staging)
	// into device memory, in seconds, from the host's view: on a queue,
	// submit of a pre-recorded copy (or pull kernel) until its fence
	// signalled; on the host-write path, the host's stores into
	// device-mapped memory until every writer has read its last word back
	// from the device.
	Upload1MiBPinned Family
	// EmptySubmit is the round trip of a pre-recorded one-invocation
	// compute dispatch, in seconds: submit until its fence signalled, by
	// the host clock.
	EmptySubmit Family
	// CheckedWords is the number of 32-bit words compared with what was
	// sent, over every bulk round, every 1 MiB upload and the dispatch
	// counter, trials included.
	CheckedWords uint64
}

// Family is one figure's kept path and its trial.
type Family struct {
	// Candidate is the kept path; its Trial decided the family.
	Candidate
	// Stat is the kept path sampled afresh after the trial: the figure
	// signed.
	Stat schema.Stat
	// Others are the other candidates, as their trial measured them.
	Others []Candidate
}

// Candidate is one candidate path as a family's trial measured it.
type Candidate struct {
	// Path names the path. Bulk: "vulkan-mapped-", the route ("copy." and
	// the queue whose copy command moved the data, "compute-queue" or
	// "transfer-queue" (a transfer-only family, the copy engines);
	// "pull.compute-queue" and "push.compute-queue", a kernel whose
	// invocations load host memory into device memory or store device
	// memory into host memory; "write.cpu", the host's stores), "." and
	// the host memory ("host-cached": HOST_CACHED, as pinned memory;
	// "host-imported": memory we map, 2 MiB aligned and advised for
	// transparent huge pages, imported through VK_EXT_external_memory_host;
	// "device-mapped": device memory the host maps). Upload:
	// "vulkan-pinned-", the route, the memory and the wait
	// ("fence-spin"; "read-back" for the host's stores, each writer reading
	// its last word back). Dispatch: "vulkan-dispatch." and the wait
	// ("fence-wait": vkWaitForFences; "fence-spin": vkGetFenceStatus until
	// signalled).
	Path string
	// Trial is the path's figure in the trial (unit as the family's).
	Trial schema.Stat
	// Timing is how it was timed: GPU timestamps around each bulk move
	// when the queue has them, else the host clock.
	Timing schema.TimingMethod
}

// TransferOptions steer MeasureTransfer. The zero value measures 256 MiB
// transfers (fewer when the device has less memory) with full sample counts.
type TransferOptions struct {
	// Bytes is the size of one bulk transfer: a multiple of 4096 and at
	// least 1 MiB. 0 picks 256 MiB, halved until four of it fit the
	// device-local heap (or its budget).
	Bytes uint64
	// Samples is the kept bulk path's timed transfers, LatencySamples a
	// kept latency path's; 0 means transferSamples and latencySamples.
	Samples, LatencySamples int
	// TrialRounds and LatencyTrialRounds are the most rounds a bulk and a
	// latency family's trial keeps; 0 means 5 and 21.
	TrialRounds, LatencyTrialRounds int
	// BulkOnly measures the host link alone: no upload or dispatch.
	BulkOnly bool
	// NoKernelRoutes leaves out the candidates whose moves run the
	// device's own kernel (the bulk pull and push, the upload's pull).
	NoKernelRoutes bool
	// Warmup is the sustained load before each timed part (a family's
	// trial, the kept path's samples); 0 means MinWarmup. A software
	// adapter, which has no clocks of its own to bring up, may take less.
	Warmup time.Duration
	// Progress, when set, is told each step as it starts (a family's
	// trial), so that a caller can show the step running.
	Progress func(step string)

	// tamper, set by tests only, alters data read back from the device
	// before its check; what is "transfer", "upload" or "submit".
	tamper func(what string, data []byte)
}

// samples is o.Samples, or transferSamples when it is 0.
func (o TransferOptions) samples() int { return cmp.Or(o.Samples, transferSamples) }

// latencySamples is o.LatencySamples, or latencySamples when it is 0.
func (o TransferOptions) latencySamples() int { return cmp.Or(o.LatencySamples, latencySamples) }

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
	// transferSamples are the bulk samples kept.
	transferSamples = 7
	// latencyWarm uploads or submits are discarded before the samples.
	latencyWarm        = 20
	latencySamples     = 101
	latencyUploadBytes = 1 << 20
	transferPathPrefix = "vulkan-mapped-"
	pinnedPathPrefix   = "vulkan-pinned-"
	dispatchPathPrefix = "vulkan-dispatch."
	transferWarmCopies = 4 // round trips per warm-up submission
	// transferParallelMinW is the fewest words filled or compared by
	// several goroutines: above 1 MiB, so that the fresh data of a 1 MiB
	// upload is written by the goroutine that copies it.
	transferParallelMinW = 1 << 20
)

// MeasureTransfer measures the host link through raw Vulkan: bulk moves
// between mapped host memory and a device-local buffer in both directions,
// the latency of a 1 MiB upload from pinned memory and the round trip of
// an empty dispatch, each family on the faster of its few candidates
// (rule.go). Every round of bulk moves sends a new pattern and poisons the
// host buffer before moving it back, and every upload and dispatch is read
// back outside the timed regions; a mismatch returns an error wrapping
// ErrCheckFailed.
func MeasureTransfer(ctx context.Context, d *vulkan.Device, o TransferOptions) (TransferResult, error) {
	n, err := transferBytes(o.Bytes, d.Info)
	if err != nil {
		return TransferResult{}, err
	}
	res := TransferResult{TransferBytes: n}
	if err := measureBulk(ctx, d, n, o, &res); err != nil {
		return TransferResult{}, fmt.Errorf("coopmat: transfer: %w", err)
	}
	if o.BulkOnly {
		return res, nil
	}
	if err := measureUpload(ctx, d, o, &res); err != nil {
		return TransferResult{}, fmt.Errorf("coopmat: transfer: pinned 1 MiB upload: %w", err)
	}
	if err := measureSubmit(ctx, d, o, &res); err != nil {
		return TransferResult{}, fmt.Errorf("coopmat: transfer: empty submit: %w", err)
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

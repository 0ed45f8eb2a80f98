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

// TransferResult holds MeasureTransfer's checked figures.
type TransferResult struct {
	// HostToDevice and DeviceToHost are bulk moves, in bytes/s.
	HostToDevice, DeviceToHost Family
	// TransferBytes is one bulk transfer's size, in bytes.
	TransferBytes uint64
	// Upload1MiBPinned is a 1 MiB upload of data already in host memory,
	// in seconds on the host's clock: until its fence, or until every
	// host writer read its last word back.
	Upload1MiBPinned Family
	// EmptySubmit is an empty dispatch's submit-to-fence time, in host seconds.
	EmptySubmit Family
	// CheckedWords is the 32-bit words compared, trials included.
	CheckedWords uint64
}

// Family is one figure's kept path, its trial, and the other candidates.
type Family struct {
	Candidate
	// Stat is the kept path sampled afresh after the trial: the figure.
	Stat schema.Stat
	// Others are the other candidates as their trial measured them.
	Others []Candidate
}

// Candidate is one path as a family's trial measured it.
type Candidate struct {
	// Path names the path: prefix, route, host memory and, for latencies, the wait.
	Path string
	// Trial is the path's figure in the trial, in the family's unit.
	Trial schema.Stat
	// Timing is GPU timestamps where the queue has them, else the host clock.
	Timing schema.TimingMethod
}

// TransferOptions steer MeasureTransfer; the zero value is the default.
type TransferOptions struct {
	// Bytes is the size of one bulk transfer: a multiple of 4096 and at
	// least 1 MiB. 0 picks 256 MiB, halved until four of it fit the
	// device-local heap (or its budget).
	Bytes uint64
	// Samples and LatencySamples are the kept paths' samples (0: default).
	Samples, LatencySamples int
	// TrialRounds and LatencyTrialRounds cap a trial's rounds; 0 means 5 and 21.
	TrialRounds, LatencyTrialRounds int
	// BulkOnly measures the host link alone: no upload or dispatch.
	BulkOnly bool
	// NoKernelRoutes leaves out the candidates that run a kernel.
	NoKernelRoutes bool
	// Warmup is the sustained load before each timed part; 0 means MinWarmup.
	Warmup time.Duration
	// Progress, when set, is told each step as it starts.
	Progress func(step string)

	// tamper, set by tests, alters read-back data ("transfer", "upload", "submit").
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

func (o TransferOptions) progress(format string, args ...any) {
	if o.Progress != nil {
		o.Progress(fmt.Sprintf(format, args...))
	}
}

// Sizes and sample counts of MeasureTransfer.
const (
	transferMaxBytes     = 256 << 20
	transferMinBytes     = 1 << 20
	transferAlign        = 4096
	transferSamples      = 7
	latencyWarm          = 20
	latencySamples       = 101
	latencyUploadBytes   = 1 << 20
	transferPathPrefix   = "vulkan-mapped-"
	pinnedPathPrefix     = "vulkan-pinned-"
	dispatchPathPrefix   = "vulkan-dispatch."
	transferWarmCopies   = 4       // round trips per warm-up submission
	transferParallelMinW = 1 << 20 // fewest words split over goroutines (a 1 MiB upload stays on one)
)

// MeasureTransfer measures the host link both ways, the pinned 1 MiB upload
// and the empty dispatch; a mismatch is an error wrapping ErrCheckFailed.
func MeasureTransfer(ctx context.Context, d *vulkan.Device, o TransferOptions) (TransferResult, error) {
	n, err := transferBytes(o.Bytes, d.Info)
	if err != nil {
		return TransferResult{}, err
	}
	res := TransferResult{TransferBytes: n}
	if err := measureBulk(ctx, d, n, o, &res); err != nil {
		return TransferResult{}, fmt.Errorf("%s: %w", ProbeHostLink, err)
	}
	if o.BulkOnly {
		return res, nil
	}
	if err := measureUpload(ctx, d, o, &res); err != nil {
		return TransferResult{}, fmt.Errorf("%s: pinned 1 MiB upload: %w", ProbeLaunch, err)
	}
	if err := measureSubmit(ctx, d, o, &res); err != nil {
		return TransferResult{}, fmt.Errorf("%s: empty dispatch: %w", ProbeLaunch, err)
	}
	return res, nil
}

// transferBytes checks want, or picks 256 MiB halved until four fit.
func transferBytes(want uint64, info vulkan.DeviceInfo) (uint64, error) {
	if want != 0 {
		if want < transferMinBytes || want%transferAlign != 0 {
			return 0, fmt.Errorf("%s: %d-byte transfer: want a multiple of %d, at least %d", ProbeHostLink, want, transferAlign, transferMinBytes)
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
		return 0, fmt.Errorf("%s: device-local memory of %d bytes holds no %d-byte transfer", ProbeHostLink, limit, n)
	}
	return n, nil
}

// poisonWord overwrites a host buffer before a download; no pattern word
// equals it (its low bit is clear).
const poisonWord = 0xdeadbeee

// patternKey is round r's key, MurmurHash3's finaliser of r.
func patternKey(r uint32) uint64 {
	x := uint64(r) + 0x9e3779b97f4a7c15
	x ^= x >> 33
	x *= 0xff51afd7ed558ccd
	x ^= x >> 33
	x *= 0xc4ceb9fe1a85ec53
	return x ^ x>>33
}

// patternAt is word i of key k's pattern: no two indices share a product
// under one key, and the low bit is set.
func patternAt(k uint64, i int) uint32 {
	return uint32((uint64(i)^k)*0x9e3779b97f4a7c15>>32) | 1
}

func fillPattern(w []uint32, r uint32) {
	k := patternKey(r)
	_ = parallel(len(w), func(lo, hi int) error {
		for i := lo; i < hi; i++ {
			w[i] = patternAt(k, i)
		}
		return nil
	})
}

func fillWord(w []uint32, v uint32) {
	_ = parallel(len(w), func(lo, hi int) error {
		for i := lo; i < hi; i++ {
			w[i] = v
		}
		return nil
	})
}

// checkPattern compares w with round r's pattern (ErrCheckFailed).
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

// parallel runs fn over [0, n) in a range per CPU and returns the first error.
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

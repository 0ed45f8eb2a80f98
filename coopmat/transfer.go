package coopmat

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"time"
	"unsafe"

	vk "github.com/vulkan-go/vulkan"

	"github.com/everycycle/appraise/internal/stats"
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
	// host's view: the copy into a persistently mapped staging buffer, the
	// submit of a pre-recorded copy and the wait for its fence.
	Upload1MiB schema.Stat `json:"upload_1mib_s"`
	// Upload1MiBPinned is Upload1MiB with the data already in the mapped
	// staging buffer when the clock starts, as in a pinned host buffer
	// (CUDA's pinned memory, WebGPU's mapped staging): submit until the
	// fence signalled, in seconds.
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
	// this device: "vulkan-host-copy.", the queue and the staging memory
	// (as in Direction.Path), "." and the wait ("fence-wait":
	// vkWaitForFences; "fence-spin": vkGetFenceStatus until signalled).
	UploadPath string `json:"upload_path"`
	// UploadPinnedPath names Upload1MiBPinned's path likewise, starting
	// "vulkan-pinned-copy.".
	UploadPinnedPath string `json:"upload_pinned_path"`
	// SubmitPath names the empty submit's path, the faster wait in a trial:
	// "vulkan-dispatch." and the wait, as in UploadPath.
	SubmitPath string `json:"submit_path"`
}

// Direction is one direction of the bulk host link, on the faster of the
// queues that copy.
type Direction struct {
	// BytesPerS is the rate per sample (decimal: 1e9 bytes/s is 1 GB/s).
	BytesPerS schema.Stat `json:"bytes_per_s"`
	// Path names the path: "vulkan-mapped-copy.", the queue
	// ("compute-queue"; "transfer-queue": a transfer-only family, the
	// device's copy engines), "." and the host memory ("host-cached":
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

	// tamper, set by tests only, alters data read back from the device
	// before its check; what is "transfer", "upload" or "submit".
	tamper func(what string, data []byte)
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
	transferPathPrefix  = "vulkan-mapped-copy."
	uploadPathPrefix    = "vulkan-host-copy."
	pinnedPathPrefix    = "vulkan-pinned-copy."
	dispatchPathPrefix  = "vulkan-dispatch."
	transferWarmCopies  = 4 // round trips per warm-up submission
	// transferParallelMinW is the fewest words filled or compared by
	// several goroutines: above 1 MiB, so that the fresh data of a 1 MiB
	// upload is written by the goroutine that copies it.
	transferParallelMinW = 1 << 20
)

// MeasureTransfer measures the host link through raw Vulkan: bulk copies
// between one persistently mapped host buffer and one device-local buffer
// in both directions (after at least MinWarmup of copies), on the compute
// queue and on a transfer-only queue when the device has one (each
// direction keeps the faster), the latency of
// a 1 MiB upload (from host memory, and from pinned memory) and the round
// trip of an empty dispatch. Every round of
// bulk copies sends a new pattern and poisons the host buffer before
// copying it back, and every upload and dispatch is read back outside the
// timed regions; a mismatch returns an error wrapping ErrCheckFailed.
func MeasureTransfer(ctx context.Context, d *Device, o TransferOptions) (TransferResult, error) {
	n, err := transferBytes(o.Bytes, d.Info)
	if err != nil {
		return TransferResult{}, err
	}
	res := TransferResult{TransferBytes: n}
	if err := d.measureBulk(ctx, n, o, &res); err != nil {
		return TransferResult{}, fmt.Errorf("coopmat: transfer: %w", err)
	}
	if err := d.measureUpload(ctx, o, &res); err != nil {
		return TransferResult{}, fmt.Errorf("coopmat: transfer: 1 MiB upload: %w", err)
	}
	if err := d.measureSubmit(ctx, o, &res); err != nil {
		return TransferResult{}, fmt.Errorf("coopmat: transfer: empty submit: %w", err)
	}
	return res, nil
}

// transferBytes checks a requested transfer size, or picks one: 256 MiB,
// halved until four of it fit the device-local heap (its budget if known).
func transferBytes(want uint64, info DeviceInfo) (uint64, error) {
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

// bulk is the buffers and the pre-recorded copies of the bulk measurement
// on one queue: uploads from src (host memory of kind), downloads into back
// (host-cached memory, which the host reads fast enough to check; src
// itself when src is cached, imported or not).
type bulk struct {
	d          *Device
	q          *queue
	n          uint64
	src, back  *Buffer
	dev        *Buffer
	kind, into hostMemory
	up, down   *commands
	warm       *commands
	upT, downT *timer
	tamper     func(string, []byte)
	round      uint32
	checked    uint64
}

// measureBulk fills res's bulk figures: each direction on the queue and
// from the host memory that moved it fastest. Uploads are tried from
// host-cached memory (as pinned memory), where the device has it from
// write-combined memory, which a copy reads without snooping the host's
// caches, and where it imports host memory from memory we mapped in huge
// pages (downloads too, when that memory is cached).
func (d *Device) measureBulk(ctx context.Context, n uint64, o TransferOptions, res *TransferResult) error {
	for _, q := range d.queues() {
		for _, k := range hostKinds {
			up, down, checked, err := d.bulkOn(ctx, q, n, k, o)
			if errors.Is(err, errNoHostMemory) {
				continue
			}
			if err != nil {
				return fmt.Errorf("%s: %w", q.name, err)
			}
			if up.BytesPerS.Median > res.HostToDevice.BytesPerS.Median {
				res.HostToDevice = up
			}
			if down.BytesPerS.Median > res.DeviceToHost.BytesPerS.Median {
				res.DeviceToHost = down
			}
			res.CheckedWords += checked
		}
	}
	return nil
}

// errNoHostMemory says that the device has no host memory of the kind
// asked for: no uncached memory (the configuration would repeat the cached
// one), or no import of host memory.
var errNoHostMemory = errors.New("no host memory of that kind")

// bulkOn measures both directions on q, uploading from host memory of kind
// k; without such memory it returns errNoHostMemory.
func (d *Device) bulkOn(ctx context.Context, q *queue, n uint64, k hostKind, o TransferOptions) (up, down Direction, checked uint64, err error) {
	b, err := d.newBulk(q, n, k, o.tamper)
	if err != nil {
		return up, down, 0, err
	}
	defer b.release()
	samples := transferSamples
	if o.Quick {
		samples = transferQuickSamples
	}
	ups, downs, err := b.sample(ctx, samples)
	if err != nil {
		return up, down, 0, err
	}
	prefix := transferPathPrefix + q.name + "."
	up = Direction{Path: prefix + b.kind.name(), Timing: b.upT.method()}
	down = Direction{Path: prefix + b.into.name(), Timing: b.downT.method()}
	if up.BytesPerS, err = rates(n, ups); err != nil {
		return up, down, 0, fmt.Errorf("host to device: %w", err)
	}
	if down.BytesPerS, err = rates(n, downs); err != nil {
		return up, down, 0, fmt.Errorf("device to host: %w", err)
	}
	return up, down, b.checked, nil
}

// rates summarises per-sample seconds of n-byte transfers as bytes/s.
func rates(n uint64, secs []float64) (schema.Stat, error) {
	r := make([]float64, len(secs))
	for i, s := range secs {
		r[i] = float64(n) / s
	}
	return stats.Summarize(r)
}

// newBulk creates the buffers, timers and recorded copies; on error
// nothing is left behind.
func (d *Device) newBulk(q *queue, n uint64, k hostKind, tamper func(string, []byte)) (*bulk, error) {
	b := &bulk{d: d, q: q, n: n, tamper: tamper}
	if err := b.create(k); err != nil {
		b.release()
		return nil, err
	}
	return b, nil
}

func (b *bulk) create(k hostKind) error {
	var err error
	if b.src, b.kind, err = b.d.newHostBuffer(b.n, k); err != nil {
		return fmt.Errorf("host buffer: %w", err)
	}
	b.back, b.into = b.src, b.kind
	if k == hostUncached && b.kind.cached {
		return errNoHostMemory
	}
	if !b.kind.cached {
		if b.back, b.into, err = b.d.newMappedBuffer(b.n, true); err != nil {
			return fmt.Errorf("readback buffer: %w", err)
		}
	}
	if b.dev, err = b.d.NewBuffer(b.n, false); err != nil {
		return fmt.Errorf("device buffer: %w", err)
	}
	if b.upT, err = b.d.newTimerOn(b.q, 2); err != nil {
		return err
	}
	if b.downT, err = b.d.newTimerOn(b.q, 2); err != nil {
		return err
	}
	for _, c := range []**commands{&b.up, &b.down, &b.warm} {
		if *c, err = b.d.newCommandsOn(b.q); err != nil {
			return err
		}
	}
	return b.record()
}

// record records the timed upload, the timed download and the warm-up
// round trips.
func (b *bulk) record() error {
	err := b.up.record(func(cb vk.CommandBuffer) { b.copy(cb, b.upT, b.src, b.dev) })
	if err == nil {
		err = b.down.record(func(cb vk.CommandBuffer) { b.copy(cb, b.downT, b.dev, b.back) })
	}
	if err == nil {
		err = b.warm.record(func(cb vk.CommandBuffer) {
			for range transferWarmCopies {
				b.copy(cb, nil, b.src, b.dev)
				b.copy(cb, nil, b.dev, b.back)
			}
		})
	}
	return err
}

// copy records a whole-buffer copy after every earlier transfer, and makes
// it visible to later transfers and to the host; with a timer t (nil for
// none), between its timestamps 0 and 1.
func (b *bulk) copy(cb vk.CommandBuffer, t *timer, src, dst *Buffer) {
	t.reset(cb)
	memoryBarrier(cb, vk.AccessTransferWriteBit|vk.AccessTransferReadBit, vk.AccessTransferReadBit|vk.AccessTransferWriteBit,
		vk.PipelineStageTransferBit, vk.PipelineStageTransferBit)
	t.stamp(cb, 0, vk.PipelineStageTopOfPipeBit)
	vk.CmdCopyBuffer(cb, src.buf, dst.buf, 1, []vk.BufferCopy{{Size: vk.DeviceSize(b.n)}})
	t.stamp(cb, 1, vk.PipelineStageBottomOfPipeBit)
	memoryBarrier(cb, vk.AccessTransferWriteBit, vk.AccessHostReadBit|vk.AccessTransferReadBit,
		vk.PipelineStageTransferBit, vk.PipelineStageHostBit|vk.PipelineStageTransferBit)
}

func (b *bulk) release() {
	b.warm.release()
	b.down.release()
	b.up.release()
	b.downT.release()
	b.upT.release()
	b.dev.Release()
	if b.back != b.src {
		b.back.Release()
	}
	b.src.Release()
}

// sample warms the link for MinWarmup, then runs n checked rounds and
// returns each round's upload and download seconds.
func (b *bulk) sample(ctx context.Context, n int) (ups, downs []float64, err error) {
	if err := warmUp(ctx, MinWarmup, func() error { _, err := b.warm.submit(); return err }); err != nil {
		return nil, nil, fmt.Errorf("warm-up: %w", err)
	}
	for range n {
		if err := ctx.Err(); err != nil {
			return nil, nil, err
		}
		up, down, err := b.roundTrip()
		if err != nil {
			return nil, nil, err
		}
		ups, downs = append(ups, up), append(downs, down)
	}
	return ups, downs, nil
}

// roundTrip writes a new pattern into the source buffer, times its
// upload, poisons the readback buffer, times the download of the device's
// copy into it and compares every word with the pattern.
func (b *bulk) roundTrip() (up, down float64, err error) {
	b.round++
	fillPattern(b.src.words(), b.round)
	if up, err = timedSubmit(b.up, b.upT); err != nil {
		return 0, 0, fmt.Errorf("host to device: %w", err)
	}
	words := b.back.words()
	fillWord(words, poisonWord)
	if down, err = timedSubmit(b.down, b.downT); err != nil {
		return 0, 0, fmt.Errorf("device to host: %w", err)
	}
	if b.tamper != nil {
		b.tamper("transfer", b.back.Bytes())
	}
	if err := checkPattern(words, b.round); err != nil {
		return 0, 0, fmt.Errorf("round %d, after host to device and back: %w", b.round, err)
	}
	b.checked += uint64(len(words))
	return up, down, nil
}

// timedSubmit runs c and returns its duration: from t's timestamps when it
// has them, else the host's time from submit until the fence.
func timedSubmit(c *commands, t *timer) (float64, error) {
	if err := t.prepare(); err != nil {
		return 0, err
	}
	host, err := c.submit()
	if err != nil {
		return 0, err
	}
	if t.pool == nil {
		return host.Seconds(), nil
	}
	secs, err := t.intervals(2)
	if err != nil {
		return 0, err
	}
	return secs[0], nil
}

// poisonWord overwrites the host buffer before a download. Its low bit is
// clear, so it is no pattern word.
const poisonWord = 0xdeadbeee

// patternWord is word i of round r's pattern: a 64-bit mix of (r, i) with
// the low bit set, so every word changes from round to round (with
// overwhelming likelihood) and none equals poisonWord.
func patternWord(r uint32, i int) uint32 {
	x := uint64(r)<<32 | uint64(uint32(i))
	x ^= x >> 33
	x *= 0xff51afd7ed558ccd
	x ^= x >> 33
	x *= 0xc4ceb9fe1a85ec53
	x ^= x >> 33
	return uint32(x) | 1
}

// words returns the mapped contents of a host buffer as 32-bit words.
func (b *Buffer) words() []uint32 {
	return unsafe.Slice((*uint32)(b.mapped), b.size/4)
}

// fillPattern writes round r's pattern into w.
func fillPattern(w []uint32, r uint32) {
	_ = parallel(len(w), func(lo, hi int) error {
		for i := lo; i < hi; i++ {
			w[i] = patternWord(r, i)
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
	return parallel(len(w), func(lo, hi int) error {
		for i := lo; i < hi; i++ {
			if want := patternWord(r, i); w[i] != want {
				return fmt.Errorf("word %d is %#08x, want %#08x: %w", i, w[i], want, ErrCheckFailed)
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

// fenceWait is how the host waits for a fence.
type fenceWait int

const (
	fenceBlock fenceWait = iota // vkWaitForFences
	fenceSpin                   // vkGetFenceStatus until signalled
)

func (w fenceWait) String() string {
	if w == fenceSpin {
		return "fence-spin"
	}
	return "fence-wait"
}

// issue resets c's fence, submits c's recorded commands and waits for the
// fence the way w says.
func (c *commands) issue(w fenceWait) error {
	if r := vk.ResetFences(c.d.dev, 1, []vk.Fence{c.fence}); r != vk.Success {
		return fmt.Errorf("vulkan: vkResetFences: %w", vk.Error(r))
	}
	si := []vk.SubmitInfo{{SType: vk.StructureTypeSubmitInfo, CommandBufferCount: 1, PCommandBuffers: []vk.CommandBuffer{c.cb}}}
	if r := vk.QueueSubmit(c.q.q, 1, si, c.fence); r != vk.Success {
		return fmt.Errorf("vulkan: vkQueueSubmit: %w", vk.Error(r))
	}
	if w == fenceSpin {
		return c.spin()
	}
	if r := vk.WaitForFences(c.d.dev, 1, []vk.Fence{c.fence}, vk.True, fenceTimeout); r != vk.Success {
		return fmt.Errorf("vulkan: vkWaitForFences: %w", vk.Error(r))
	}
	return nil
}

// spin polls c's fence until it signals, for at most fenceTimeout.
func (c *commands) spin() error {
	start := time.Now()
	for i := 0; ; i++ {
		switch r := vk.GetFenceStatus(c.d.dev, c.fence); r {
		case vk.Success:
			return nil
		case vk.NotReady:
			if i%1024 == 1023 && time.Since(start) > time.Duration(fenceTimeout) {
				return fmt.Errorf("vulkan: vkGetFenceStatus: not signalled after %v", time.Duration(fenceTimeout))
			}
		default:
			return fmt.Errorf("vulkan: vkGetFenceStatus: %w", vk.Error(r))
		}
	}
}

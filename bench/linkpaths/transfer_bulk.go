//go:build explore

package linkpaths

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	vk "github.com/vulkan-go/vulkan"

	vulkan "github.com/everycycle/appraise/coopmat/vk"
	"github.com/everycycle/appraise/internal/measure/stats"
	"github.com/everycycle/appraise/schema"
)

// bulk is the buffers and the pre-recorded moves of the bulk measurement
// on one route: uploads from src (host memory of kind), downloads into back
// (host-cached memory, which the host reads fast enough to check; src
// itself when src is cached, imported or not).
type bulk struct {
	d          *vulkan.Device
	r          route
	n          uint64
	shader     *stream // the route's kernel: pair 0 uploads, pair 1 downloads
	src, back  *vulkan.Buffer
	dev        *vulkan.Buffer
	kind, into vulkan.HostMemory
	up, down   *vulkan.Commands
	warm       *vulkan.Commands
	upT, downT *vulkan.Timer
	tamper     func(string, []byte)
	round      uint32
	checked    uint64
}

// measureBulk fills res's bulk figures: each direction on the route and
// from the host memory that moved it fastest, and for uploads also the
// host's own stores into device-mapped memory, alone and beside the
// kernel's pull (the split route), where the device has such memory.
// Uploads are tried from host-cached memory (as pinned memory), where the
// device has it from write-combined memory, which a copy reads without
// snooping the host's caches, and where it imports host memory from memory
// we mapped in huge pages (downloads too, when that memory is cached).
// o.NoKernelRoutes leaves out the kernel's routes (pull, push and split).
func measureBulk(ctx context.Context, d *vulkan.Device, n uint64, o TransferOptions, res *TransferResult) error {
	var want TransferPaths
	if o.Only != nil {
		want = *o.Only
	}
	for _, r := range routes(d) {
		if r.shader && o.NoKernelRoutes {
			continue
		}
		for _, k := range vulkan.HostKinds {
			up, down, checked, err := bulkOn(ctx, d, r, n, k, o)
			if errors.Is(err, vulkan.ErrNoHostMemory) || errors.Is(err, errNotAsked) {
				continue
			}
			if err != nil {
				return fmt.Errorf("%s: %w", r.name(true), err)
			}
			if o.asked(up.Path, want.HostToDevice) && up.BytesPerS.Median > res.HostToDevice.BytesPerS.Median {
				res.HostToDevice = up
			}
			if o.asked(down.Path, want.DeviceToHost) && down.BytesPerS.Median > res.DeviceToHost.BytesPerS.Median {
				res.DeviceToHost = down
			}
			res.CheckedWords += checked
		}
	}
	for _, r := range []struct {
		name string
		path func(string) bool
		run  func(context.Context, *vulkan.Device, uint64, TransferOptions) (Direction, uint64, error)
	}{{writeRoute, func(p string) bool { return p == writePathBulk }, bulkWrite}, {splitRoute, isSplit, bulkSplit}} {
		if o.Only != nil && !r.path(want.HostToDevice) || r.name == splitRoute && o.NoKernelRoutes {
			continue
		}
		o.progress("host link: %s (%d MiB transfers)", r.name, n>>20)
		up, checked, err := r.run(ctx, d, n, o)
		switch {
		case errors.Is(err, vulkan.ErrNoHostMemory):
		case err != nil:
			return fmt.Errorf("%s: %w", r.name, err)
		default:
			if up.BytesPerS.Median > res.HostToDevice.BytesPerS.Median {
				res.HostToDevice = up
			}
			res.CheckedWords += checked
		}
	}
	return nil
}

// writePathBulk is the host-write route's bulk path.
const writePathBulk = transferPathPrefix + writeRoute + "." + deviceMapped

// isSplit reports whether path is the split route's bulk path.
func isSplit(path string) bool { return strings.HasPrefix(path, transferPathPrefix+splitRoute+".") }

// bulkOn measures both directions on route r, uploading from host memory
// of kind k; without such memory it returns ErrNoHostMemory.
func bulkOn(ctx context.Context, d *vulkan.Device, r route, n uint64, k vulkan.HostKind, o TransferOptions) (up, down Direction, checked uint64, err error) {
	b, err := newBulk(d, r, n, k, o.tamper)
	if err != nil {
		return up, down, 0, err
	}
	defer b.release()
	up = Direction{Path: transferPathPrefix + r.name(true) + "." + b.kind.Name(), Timing: b.upT.Method()}
	down = Direction{Path: transferPathPrefix + r.name(false) + "." + b.into.Name(), Timing: b.downT.Method()}
	if o.Only != nil && up.Path != o.Only.HostToDevice && down.Path != o.Only.DeviceToHost {
		return up, down, 0, errNotAsked
	}
	o.progress("host link: %s and %s (%d MiB transfers)", up.Path, down.Path, n>>20)
	samples := transferSamples
	if o.Quick {
		samples = transferQuickSamples
	}
	ups, downs, err := b.sample(ctx, o.warmup(), samples)
	if err != nil {
		return up, down, 0, err
	}
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

// newBulk creates the buffers, timers and recorded moves; on error
// nothing is left behind.
func newBulk(d *vulkan.Device, r route, n uint64, k vulkan.HostKind, tamper func(string, []byte)) (*bulk, error) {
	b := &bulk{d: d, r: r, n: n, tamper: tamper}
	if err := b.create(k); err != nil {
		b.release()
		return nil, err
	}
	return b, nil
}

func (b *bulk) create(k vulkan.HostKind) error {
	var err error
	if b.src, b.kind, err = b.d.NewHostBuffer(b.n, k); err != nil {
		return fmt.Errorf("host buffer: %w", err)
	}
	b.back, b.into = b.src, b.kind
	if k == vulkan.HostUncached && b.kind.Cached {
		return vulkan.ErrNoHostMemory
	}
	if !b.kind.Cached {
		if b.back, b.into, err = b.d.NewMappedBuffer(b.n, true); err != nil {
			return fmt.Errorf("readback buffer: %w", err)
		}
	}
	if b.dev, err = b.d.NewBuffer(b.n, false); err != nil {
		return fmt.Errorf("device buffer: %w", err)
	}
	if b.r.shader {
		if b.shader, err = newStream(b.d, b.n, [][]*vulkan.Buffer{{b.src, b.dev}, {b.dev, b.back}}); err != nil {
			return fmt.Errorf("stream kernel: %w", err)
		}
	}
	if b.upT, err = b.d.NewTimerOn(b.r.q, 2); err != nil {
		return err
	}
	if b.downT, err = b.d.NewTimerOn(b.r.q, 2); err != nil {
		return err
	}
	for _, c := range []**vulkan.Commands{&b.up, &b.down, &b.warm} {
		if *c, err = b.d.NewCommandsOn(b.r.q); err != nil {
			return err
		}
	}
	return b.record()
}

// record records the timed upload, the timed download and the warm-up
// round trips.
func (b *bulk) record() error {
	err := b.up.Record(func(cb vk.CommandBuffer) { b.move(cb, b.upT, true) })
	if err == nil {
		err = b.down.Record(func(cb vk.CommandBuffer) { b.move(cb, b.downT, false) })
	}
	if err == nil {
		err = b.warm.Record(func(cb vk.CommandBuffer) {
			for range transferWarmCopies {
				b.move(cb, nil, true)
				b.move(cb, nil, false)
			}
		})
	}
	return err
}

// move records one whole-buffer upload (src → dev) or download (dev →
// back) on the route, timed by t unless t is nil.
func (b *bulk) move(cb vk.CommandBuffer, t *vulkan.Timer, up bool) {
	switch {
	case b.shader != nil && up:
		b.shader.move(cb, t, 0)
	case b.shader != nil:
		b.shader.move(cb, t, 1)
	case up:
		b.copy(cb, t, b.src, b.dev)
	default:
		b.copy(cb, t, b.dev, b.back)
	}
}

// copy records a whole-buffer copy after every earlier transfer, and makes
// it visible to later transfers and to the host; with a timer t (nil for
// none), between its timestamps 0 and 1.
func (b *bulk) copy(cb vk.CommandBuffer, t *vulkan.Timer, src, dst *vulkan.Buffer) {
	t.Reset(cb)
	vulkan.MemoryBarrier(cb, vk.AccessTransferWriteBit|vk.AccessTransferReadBit, vk.AccessTransferReadBit|vk.AccessTransferWriteBit,
		vk.PipelineStageTransferBit, vk.PipelineStageTransferBit)
	t.Stamp(cb, 0, vk.PipelineStageTopOfPipeBit)
	vk.CmdCopyBuffer(cb, src.Buf, dst.Buf, 1, []vk.BufferCopy{{Size: vk.DeviceSize(b.n)}})
	t.Stamp(cb, 1, vk.PipelineStageBottomOfPipeBit)
	vulkan.MemoryBarrier(cb, vk.AccessTransferWriteBit, vk.AccessHostReadBit|vk.AccessTransferReadBit,
		vk.PipelineStageTransferBit, vk.PipelineStageHostBit|vk.PipelineStageTransferBit)
}

func (b *bulk) release() {
	b.warm.Release()
	b.down.Release()
	b.up.Release()
	b.downT.Release()
	b.upT.Release()
	b.shader.release()
	b.dev.Release()
	if b.back != b.src {
		b.back.Release()
	}
	b.src.Release()
}

// sample warms the link for warm, then runs n checked rounds and
// returns each round's upload and download seconds.
func (b *bulk) sample(ctx context.Context, warm time.Duration, n int) (ups, downs []float64, err error) {
	if err := vulkan.WarmUp(ctx, warm, func() error { _, err := b.warm.Submit(); return err }); err != nil {
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
	fillPattern(b.src.Words(), b.round)
	if up, err = timedSubmit(b.up, b.upT); err != nil {
		return 0, 0, fmt.Errorf("host to device: %w", err)
	}
	words := b.back.Words()
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
func timedSubmit(c *vulkan.Commands, t *vulkan.Timer) (float64, error) {
	if err := t.Prepare(); err != nil {
		return 0, err
	}
	host, err := c.Submit()
	if err != nil {
		return 0, err
	}
	if t.Pool == nil {
		return host.Seconds(), nil
	}
	secs, err := t.Intervals(2)
	if err != nil {
		return 0, err
	}
	return secs[0], nil
}

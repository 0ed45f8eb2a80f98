//go:build explore

package link

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	vk "github.com/vulkan-go/vulkan"

	vulkan "github.com/everycycle/appraise/coopmat/vk"
	"github.com/everycycle/appraise/coopmat/vk/vktest/smaps"
	"github.com/everycycle/appraise/schema"
)

// The exploration of the host link: every path the rule (rule.go) does
// not try, measured with the product's own buffers, kernels, patterns and
// checks and logged, for a look at how a device's queues and host memory
// differ (bench/linkpaths, bench/h200.sh EXPLORE=1). It exists only with
// the explore build tag: the product measures its families' candidates.

// Logf logs one line of an exploration (testing.T.Logf fits).
type Logf func(format string, args ...any)

// exploreSizes are the bulk sizes explored below the default transfer.
var exploreSizes = []uint64{1 << 20, 4 << 20, 16 << 20, 64 << 20}

// ExploreTransfer logs d's memory heaps and types, whether it imports host
// memory (and how much of an imported buffer the kernel backed with
// transparent huge pages), the bulk host link at sizes up to the default
// transfer on every route (each queue's copy, the kernel's pull and push)
// from every host memory kind, the host's stores into device-mapped memory
// alone and beside the kernel's pull (the split route), and the median of
// every 1 MiB upload method (each route, staging memory and fence wait; 1
// to 16 host writers), from host memory and pinned. Every move is checked
// as the product checks it; a mismatch returns an error wrapping
// ErrCheckFailed.
func ExploreTransfer(ctx context.Context, d *vulkan.Device, logf Logf) error {
	n, err := transferBytes(0, d.Info)
	if err != nil {
		return err
	}
	if err := logImport(d, n, logf); err != nil {
		return err
	}
	logMemoryTypes(d, logf)
	var o TransferOptions
	for _, size := range append(exploreSizes, n) {
		if err := exploreBulk(ctx, d, size, o, logf); err != nil {
			return err
		}
	}
	return exploreUploads(ctx, d, o, logf)
}

// exploreBulk logs n-byte bulk moves: the host's stores and the split
// route (uploads only), then every route from every host memory kind the
// device has.
func exploreBulk(ctx context.Context, d *vulkan.Device, n uint64, o TransferOptions, logf Logf) error {
	w, err := newHostWrite(d, n, o.tamper)
	if err == nil {
		up, _, err := sampleBulk(ctx, w, n, o, false)
		p, _ := w.paths()
		w.release()
		if err != nil {
			return fmt.Errorf("%s: %w", p.Path, err)
		}
		logRate(logf, n, "h2d", p, up)
	}
	if err := logNoMemory(logf, n, err); err != nil {
		return err
	}
	p, up, err := bulkSplit(ctx, d, n, o)
	if err == nil {
		logRate(logf, n, "h2d", p, up)
	}
	if err := logNoMemory(logf, n, err); err != nil {
		return err
	}
	for _, r := range routes(d) {
		for _, k := range vulkan.HostKinds {
			b, err := newBulk(d, r, n, k, o.tamper)
			if errors.Is(err, vulkan.ErrNoHostMemory) {
				continue
			}
			if err != nil {
				return fmt.Errorf("%s: %w", r.name(true), err)
			}
			up, down, err := sampleBulk(ctx, b, n, o, true)
			pu, pd := b.paths()
			b.release()
			if err != nil {
				return fmt.Errorf("%s: %w", pu.Path, err)
			}
			logRate(logf, n, "h2d", pu, up)
			logRate(logf, n, "d2h", pd, down)
		}
	}
	return nil
}

// logNoMemory logs err when the device lacks the memory of an n-byte path
// (ErrNoHostMemory), and returns any other error.
func logNoMemory(logf Logf, n uint64, err error) error {
	if errors.Is(err, vulkan.ErrNoHostMemory) {
		logf("%d MiB: %v", n>>20, err)
		return nil
	}
	return err
}

// logRate logs path c's rates s of n-byte moves in direction dir.
func logRate(logf Logf, n uint64, dir string, c Candidate, s schema.Stat) {
	logf("%d MiB %s %s %.2f GB/s (min %.2f, max %.2f, n=%d) %s", n>>20, dir, c.Path,
		s.Median/1e9, s.Min/1e9, s.Max/1e9, s.Samples, c.Timing)
}

// logMemoryTypes logs d's memory heaps and types.
func logMemoryTypes(d *vulkan.Device, logf Logf) {
	for i := range d.Memory.MemoryHeapCount {
		h := d.Memory.MemoryHeaps[i]
		h.Deref()
		logf("heap %d: %d MiB, flags %#x", i, uint64(h.Size)>>20, h.Flags)
	}
	for i := range d.Memory.MemoryTypeCount {
		mt := d.Memory.MemoryTypes[i]
		logf("memory type %d: heap %d, flags %#x", i, mt.HeapIndex, mt.PropertyFlags)
	}
}

// logImport logs whether d imports host memory and, if so, how much of an
// n-byte imported buffer is in transparent huge pages.
func logImport(d *vulkan.Device, n uint64, logf Logf) error {
	align, ok := d.HostImportAlign()
	thp, _ := os.ReadFile("/sys/kernel/mm/transparent_hugepage/enabled")
	logf("%s listed %v, host import offered %v (minImportedHostPointerAlignment %d), page %d bytes, THP %q",
		vulkan.ExtExternalMemoryHost, d.Info.HasExtension(vulkan.ExtExternalMemoryHost), ok, align, os.Getpagesize(), strings.TrimSpace(string(thp)))
	if !ok {
		return nil
	}
	b, m, err := d.NewImportedBuffer(n)
	if err != nil {
		return fmt.Errorf("imported buffer: %w", err)
	}
	defer b.Release()
	flags := d.Memory.MemoryTypes[m.Index].PropertyFlags
	logf("%d MiB imported at %#x as memory type %d (flags %#x, cached %v): %d KiB in huge pages", n>>20,
		uintptr(b.Mapped), m.Index, flags, m.Cached, smaps.AnonHugeKiB(uint64(uintptr(b.Mapped))))
	return nil
}

// ExploreSplitCopy logs one copy split in halves over the compute and the
// transfer queue at once (host wall clock, submit to both fences), uploads
// and downloads, at 1 MiB and at the largest transfer, to see whether two
// engines move more than one; each round is checked by a readback. It
// needs a device with a copy queue.
func ExploreSplitCopy(ctx context.Context, d *vulkan.Device, logf Logf) error {
	if d.CopyQ == nil {
		return fmt.Errorf("%s has no transfer-only queue family", d.Info.Name)
	}
	for _, n := range []uint64{1 << 20, transferMaxBytes} {
		if err := splitCopy(ctx, d, n, logf); err != nil {
			return fmt.Errorf("%d MiB: %w", n>>20, err)
		}
	}
	return nil
}

// splitCopy rounds: the first discarded, then the timed ones.
const (
	splitCopyDiscard = 10
	splitCopyRounds  = 60
)

// splitCopy logs the n-byte copy split over both queues.
func splitCopy(ctx context.Context, d *vulkan.Device, n uint64, logf Logf) error {
	host, _, err := d.NewMappedBuffer(n, true)
	if err != nil {
		return err
	}
	defer host.Release()
	dev, err := d.NewBuffer(n, false)
	if err != nil {
		return err
	}
	defer dev.Release()
	var cs [2][]*vulkan.Commands // [upload, download][queue]
	defer func() {
		for _, pair := range cs {
			for _, c := range pair {
				c.Release()
			}
		}
	}()
	half := vk.DeviceSize(n / 2)
	for dir := range cs {
		src, dst := host, dev
		if dir == 1 {
			src, dst = dev, host
		}
		for qi, q := range d.Queues() {
			c, err := d.NewCommandsOn(q)
			if err != nil {
				return err
			}
			cs[dir] = append(cs[dir], c)
			at := half * vk.DeviceSize(qi)
			err = c.Record(func(cb vk.CommandBuffer) {
				vk.CmdCopyBuffer(cb, src.Buf, dst.Buf, 1, []vk.BufferCopy{{SrcOffset: at, DstOffset: at, Size: half}})
				vulkan.MemoryBarrier(cb, vk.AccessTransferWriteBit, vk.AccessHostReadBit, vk.PipelineStageTransferBit, vk.PipelineStageHostBit)
			})
			if err != nil {
				return err
			}
		}
	}
	words := host.Words()
	var ups, downs []float64
	for r := range uint32(splitCopyRounds) {
		if err := ctx.Err(); err != nil {
			return err
		}
		fillPattern(words, r+1)
		up, err := submitAll(cs[0])
		if err != nil {
			return fmt.Errorf("host to device: %w", err)
		}
		fillWord(words, poisonWord)
		down, err := submitAll(cs[1])
		if err != nil {
			return fmt.Errorf("device to host: %w", err)
		}
		if err := checkPattern(words, r+1); err != nil {
			return fmt.Errorf("round %d, split over both queues and back: %w", r+1, err)
		}
		if r >= splitCopyDiscard {
			ups, downs = append(ups, up), append(downs, down)
		}
	}
	su, err := rates(n, ups)
	if err != nil {
		return err
	}
	sd, err := rates(n, downs)
	if err != nil {
		return err
	}
	logf("%d MiB split over two queues: h2d %.2f GB/s (%.1f µs; min %.2f max %.2f), d2h %.2f GB/s (%.1f µs; min %.2f max %.2f)", n>>20,
		su.Median/1e9, float64(n)/su.Median*1e6, su.Min/1e9, su.Max/1e9, sd.Median/1e9, float64(n)/sd.Median*1e6, sd.Min/1e9, sd.Max/1e9)
	return nil
}

// submitAll submits every command of cs, then spins on each fence: the
// host's seconds from the first submit until the last fence signalled.
func submitAll(cs []*vulkan.Commands) (float64, error) {
	start := time.Now()
	for _, c := range cs {
		if err := c.ResetFence(); err != nil {
			return 0, err
		}
		if err := c.Enqueue(); err != nil {
			return 0, err
		}
	}
	for _, c := range cs {
		if err := c.Spin(); err != nil {
			return 0, err
		}
	}
	return time.Since(start).Seconds(), nil
}

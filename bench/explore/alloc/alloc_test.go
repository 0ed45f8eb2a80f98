//go:build explore

// Package alloc times the raw-Vulkan driver's allocation and release of
// device memory, to tell a driver's cost per byte from a probe's own (go
// test -tags explore -run AllocTimeline -v ./bench/explore/alloc/).
package alloc

import (
	"sync"
	"testing"
	"time"

	vk "github.com/vulkan-go/vulkan"

	vulkan "github.com/everycycle/appraise/coopmat/vk"
	"github.com/everycycle/appraise/coopmat/vk/vktest"
)

// TestAllocTimeline times vkAllocateMemory and vkFreeMemory of
// device-local buffers on the first device, in chunks of 1, 4 and 16 GiB,
// 32 GiB of each (less when the device has less), each chunk cleared with
// vkCmdFillBuffer so that its pages are really there; then 1 GiB chunks
// allocated and freed from 8 goroutines at once.
func TestAllocTimeline(t *testing.T) {
	d := vktest.Device(t)
	total := min(uint64(32)<<30, d.Info.DeviceLocalBytes/2)
	for _, chunk := range []uint64{1 << 30, 4 << 30, 16 << 30} {
		if chunk <= total {
			chunks(t, d, chunk, total)
		}
	}
	const workers = 8
	if per := int(total / (1 << 30) / workers); per > 0 {
		parallel(t, d, workers, per)
	}
}

// chunks allocates, clears and frees total bytes in chunks of chunk bytes.
func chunks(t *testing.T, d *vulkan.Device, chunk, total uint64) {
	var bufs []*vulkan.Buffer
	var allocS, clearS float64
	for n := uint64(0); n+chunk <= total; n += chunk {
		start := time.Now()
		b, err := d.NewBuffer(chunk, false)
		if err != nil {
			t.Logf("%d GiB chunk %d: %v", chunk>>30, len(bufs), err)
			break
		}
		allocS += time.Since(start).Seconds()
		bufs = append(bufs, b)
		start = time.Now()
		if err := zero(d, b); err != nil {
			t.Fatal(err)
		}
		clearS += time.Since(start).Seconds()
	}
	held := uint64(len(bufs)) * chunk
	start := time.Now()
	for _, b := range bufs {
		b.Release()
	}
	freeS := time.Since(start).Seconds()
	t.Logf("%2d GiB chunks, %d of them: allocate %.2f s (%.1f GB/s), clear %.2f s, free %.2f s (%.1f GB/s)",
		chunk>>30, len(bufs), allocS, float64(held)/allocS/1e9, clearS, freeS, float64(held)/freeS/1e9)
}

// zero fills b with zeros on the device and waits for it.
func zero(d *vulkan.Device, b *vulkan.Buffer) error {
	c, err := d.NewCommands()
	if err != nil {
		return err
	}
	defer c.Release()
	if err := c.Record(func(cb vk.CommandBuffer) { vk.CmdFillBuffer(cb, b.Buf, 0, vk.DeviceSize(vk.WholeSize), 0) }); err != nil {
		return err
	}
	_, err = c.Submit()
	return err
}

// parallel allocates per 1 GiB chunks from each of workers goroutines at
// once, then frees them the same way.
func parallel(t *testing.T, d *vulkan.Device, workers, per int) {
	const chunk = uint64(1 << 30)
	bufs := make([][]*vulkan.Buffer, workers)
	errs := make([]error, workers)
	var wg sync.WaitGroup
	start := time.Now()
	for w := range workers {
		wg.Go(func() {
			for range per {
				b, err := d.NewBuffer(chunk, false)
				if err != nil {
					errs[w] = err
					return
				}
				bufs[w] = append(bufs[w], b)
			}
		})
	}
	wg.Wait()
	allocS := time.Since(start).Seconds()
	n := 0
	for w := range workers {
		n += len(bufs[w])
		if errs[w] != nil {
			t.Logf("worker %d: %v", w, errs[w])
		}
	}
	start = time.Now()
	for w := range workers {
		wg.Go(func() {
			for _, b := range bufs[w] {
				b.Release()
			}
		})
	}
	wg.Wait()
	freeS := time.Since(start).Seconds()
	held := uint64(n) * chunk
	t.Logf(" 1 GiB chunks from %d goroutines, %d of them: allocate %.2f s (%.1f GB/s), free %.2f s (%.1f GB/s)",
		workers, n, allocS, float64(held)/allocS/1e9, freeS, float64(held)/freeS/1e9)
}

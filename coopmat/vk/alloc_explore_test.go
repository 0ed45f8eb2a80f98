//go:build explore

// Research harness, outside the product's tests: run it with
// go test -tags explore -run AllocTimeline -v.

package vk

import (
	"sync"
	"testing"
	"time"

	vk "github.com/vulkan-go/vulkan"
)

// TestAllocTimeline times vkAllocateMemory and vkFreeMemory of device-local
// buffers on the first device, in chunks of 1, 4 and 16 GiB, 32 GiB of
// each (less when the device has less), and a clear of each chunk with
// vkCmdFillBuffer so that its pages are really there; then 1 GiB chunks
// allocated and freed from 8 goroutines at once. It asks whether the
// capacity probe's allocation and release time (1 GiB chunks through wgpu)
// is the driver's cost per byte, which a larger chunk or more threads
// would not change, or a cost per allocation.
func TestAllocTimeline(t *testing.T) {
	d := newDevice(t)
	total := min(uint64(32)<<30, d.Info.DeviceLocalBytes/2)
	for _, chunk := range []uint64{1 << 30, 4 << 30, 16 << 30} {
		if chunk > total {
			continue
		}
		var bufs []*Buffer
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
			if err := d.submitOnce(func(cb vk.CommandBuffer) { vk.CmdFillBuffer(cb, b.Buf, 0, vk.DeviceSize(vk.WholeSize), 0) }); err != nil {
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
	const workers = 8
	chunk := uint64(1 << 30)
	per := int(total / chunk / workers)
	if per == 0 {
		return
	}
	bufs := make([][]*Buffer, workers)
	errs := make([]error, workers)
	var wg sync.WaitGroup
	start := time.Now()
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range per {
				b, err := d.NewBuffer(chunk, false)
				if err != nil {
					errs[w] = err
					return
				}
				bufs[w] = append(bufs[w], b)
			}
		}()
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
		wg.Add(1)
		go func() {
			defer wg.Done()
			for _, b := range bufs[w] {
				b.Release()
			}
		}()
	}
	wg.Wait()
	freeS := time.Since(start).Seconds()
	held := uint64(n) * chunk
	t.Logf(" 1 GiB chunks from %d goroutines, %d of them: allocate %.2f s (%.1f GB/s), free %.2f s (%.1f GB/s)",
		workers, n, allocS, float64(held)/allocS/1e9, freeS, float64(held)/freeS/1e9)
}

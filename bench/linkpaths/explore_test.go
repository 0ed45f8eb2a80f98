//go:build explore

// The exploration harness of the host link: every route, memory and 1 MiB
// upload method at full size, logged on a GPU host (go test -c -tags
// explore -o bin/vklink.test ./bench/linkpaths/; bench/h200.sh EXPLORE=1).

package linkpaths

import (
	"context"
	"errors"
	"flag"
	"os"
	"strings"
	"testing"
	"time"

	vulkan "github.com/everycycle/appraise/coopmat/vk"
	"github.com/everycycle/appraise/internal/vkprobe/smaps"
	"github.com/everycycle/appraise/internal/vkprobe/vktest"
	vk "github.com/vulkan-go/vulkan"
)

var flagLink = flag.Bool("coopmat.transfer", false, "log every host-link path (each queue, 256 MiB) and every 1 MiB upload method")

// TestTransferPathsFullSize logs the bulk host link on every queue from
// every host memory kind at sizes up to the default, and every 1 MiB upload
// method's median, for a look at how a device's queues and host memory
// differ; for imported host memory, also how much of it the kernel backed
// with transparent huge pages. It runs only with -coopmat.transfer.
func TestTransferPathsFullSize(t *testing.T) {
	if !*flagLink {
		t.Skip("pass -coopmat.transfer")
	}
	d := vktest.Device(t)
	n, err := transferBytes(0, d.Info)
	if err != nil {
		t.Fatal(err)
	}
	logImport(t, d, n)
	logMemoryTypes(t, d)
	for _, size := range []uint64{1 << 20, 4 << 20, 16 << 20, 64 << 20, n} {
		for _, run := range []func(context.Context, *vulkan.Device, uint64, TransferOptions) (Direction, uint64, error){bulkWrite, bulkSplit} {
			up, _, err := run(t.Context(), d, size, TransferOptions{})
			switch {
			case errors.Is(err, vulkan.ErrNoHostMemory):
				t.Logf("%d MiB: %v", size>>20, err)
			case err != nil:
				t.Fatal(err)
			default:
				s := up.BytesPerS
				t.Logf("%d MiB h2d %s %.2f GB/s (min %.2f, max %.2f, n=%d) %s", size>>20, up.Path,
					s.Median/1e9, s.Min/1e9, s.Max/1e9, s.Samples, up.Timing)
			}
		}
		for _, r := range routes(d) {
			for _, k := range vulkan.HostKinds {
				up, down, _, err := bulkOn(t.Context(), d, r, size, k, TransferOptions{})
				if errors.Is(err, vulkan.ErrNoHostMemory) {
					continue
				}
				if err != nil {
					t.Fatalf("%s: %v", r.name(true), err)
				}
				for _, dir := range []struct {
					name string
					Direction
				}{{"h2d", up}, {"d2h", down}} {
					s := dir.BytesPerS
					t.Logf("%d MiB %s %s %.2f GB/s (min %.2f, max %.2f, n=%d) %s", size>>20, dir.name, dir.Path,
						s.Median/1e9, s.Min/1e9, s.Max/1e9, s.Samples, dir.Timing)
				}
			}
		}
	}
	u := newTestUploader(t, d)
	for _, pinned := range []bool{false, true} {
		for _, m := range u.methods(pinned) {
			s, err := sampleLatency(t.Context(), m, vulkan.MinWarmup, latencySamples)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%s %.1f µs (min %.1f, max %.1f)", m.path, s.Median*1e6, s.Min*1e6, s.Max*1e6)
		}
	}
	if err := u.check(); err != nil {
		t.Fatal(err)
	}
}

// newTestUploader is an uploader on d with every staging memory and route,
// released with the test.
func newTestUploader(t *testing.T, d *vulkan.Device) *uploader {
	t.Helper()
	u := &uploader{d: d, routes: routes(d), src: make([]uint32, latencyUploadBytes/4)}
	t.Cleanup(u.release)
	if err := u.create(); err != nil {
		t.Fatal(err)
	}
	return u
}

// logMemoryTypes logs d's memory types and heaps.
func logMemoryTypes(t *testing.T, d *vulkan.Device) {
	for i := range d.Memory.MemoryHeapCount {
		h := d.Memory.MemoryHeaps[i]
		h.Deref()
		t.Logf("heap %d: %d MiB, flags %#x", i, uint64(h.Size)>>20, h.Flags)
	}
	for i := range d.Memory.MemoryTypeCount {
		mt := d.Memory.MemoryTypes[i]
		t.Logf("memory type %d: heap %d, flags %#x", i, mt.HeapIndex, mt.PropertyFlags)
	}
}

// logImport logs whether d imports host memory and, if so, how much of an
// n-byte imported buffer is in transparent huge pages.
func logImport(t *testing.T, d *vulkan.Device, n uint64) {
	align, ok := d.HostImportAlign()
	thp, _ := os.ReadFile("/sys/kernel/mm/transparent_hugepage/enabled")
	t.Logf("%s listed %v, host import offered %v (minImportedHostPointerAlignment %d), page %d bytes, THP %q",
		vulkan.ExtExternalMemoryHost, d.Info.HasExtension(vulkan.ExtExternalMemoryHost), ok, align, os.Getpagesize(), strings.TrimSpace(string(thp)))
	if !ok {
		return
	}
	b, m, err := d.NewImportedBuffer(n)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Release()
	flags := d.Memory.MemoryTypes[m.Index].PropertyFlags
	t.Logf("%d MiB imported at %#x as memory type %d (flags %#x, cached %v): %d KiB in huge pages", n>>20,
		uintptr(b.Mapped), m.Index, flags, m.Cached, smaps.AnonHugeKiB(uint64(uintptr(b.Mapped))))
}

// TestSplitCopyExploration times one copy split in halves over the compute
// and the transfer queue at once (host wall clock, submit to both fences),
// uploads and downloads, at 1 MiB and 256 MiB, to see whether two engines
// move more than one. Checked by a readback. Runs only with
// -coopmat.transfer on a device with a copy queue.
func TestSplitCopyExploration(t *testing.T) {
	if !*flagLink {
		t.Skip("pass -coopmat.transfer")
	}
	d := vktest.Device(t)
	if d.CopyQ == nil {
		t.Skipf("%s has no transfer-only queue family", d.Info.Name)
	}
	for _, n := range []uint64{1 << 20, 256 << 20} {
		host, _, err := d.NewMappedBuffer(n, true)
		if err != nil {
			t.Fatal(err)
		}
		dev, err := d.NewBuffer(n, false)
		if err != nil {
			t.Fatal(err)
		}
		var cs [2][2]*vulkan.Commands // [direction][queue]
		for dir := range cs {
			for qi, q := range d.Queues() {
				c, err := d.NewCommandsOn(q)
				if err != nil {
					t.Fatal(err)
				}
				defer c.Release()
				half := vk.DeviceSize(n / 2)
				src, dst := host, dev
				if dir == 1 {
					src, dst = dev, host
				}
				err = c.Record(func(cb vk.CommandBuffer) {
					vk.CmdCopyBuffer(cb, src.Buf, dst.Buf, 1, []vk.BufferCopy{{SrcOffset: half * vk.DeviceSize(qi), DstOffset: half * vk.DeviceSize(qi), Size: half}})
					vulkan.MemoryBarrier(cb, vk.AccessTransferWriteBit, vk.AccessHostReadBit, vk.PipelineStageTransferBit, vk.PipelineStageHostBit)
				})
				if err != nil {
					t.Fatal(err)
				}
				cs[dir][qi] = c
			}
		}
		both := func(pair [2]*vulkan.Commands) float64 {
			start := time.Now()
			for _, c := range pair {
				if err := c.ResetFence(); err != nil {
					t.Fatal(err)
				}
				if err := c.Enqueue(); err != nil {
					t.Fatal(err)
				}
			}
			for _, c := range pair {
				if err := c.Spin(); err != nil {
					t.Fatal(err)
				}
			}
			return time.Since(start).Seconds()
		}
		words := host.Words()
		var ups, downs []float64
		for r := range uint32(60) {
			fillPattern(words, r+1)
			up := both(cs[0])
			fillWord(words, poisonWord)
			down := both(cs[1])
			if err := checkPattern(words, r+1); err != nil {
				t.Fatal(err)
			}
			if r >= 10 {
				ups, downs = append(ups, up), append(downs, down)
			}
		}
		su, _ := rates(n, ups)
		sd, _ := rates(n, downs)
		t.Logf("%d MiB split over two queues: h2d %.2f GB/s (%.1f µs; min %.2f max %.2f), d2h %.2f GB/s (%.1f µs; min %.2f max %.2f)", n>>20,
			su.Median/1e9, float64(n)/su.Median*1e6, su.Min/1e9, su.Max/1e9, sd.Median/1e9, float64(n)/sd.Median*1e6, sd.Min/1e9, sd.Max/1e9)
		dev.Release()
		host.Release()
	}
}

package link

import (
	"fmt"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	vk "github.com/vulkan-go/vulkan"

	vulkan "github.com/everycycle/appraise/coopmat/vk"
	"github.com/everycycle/appraise/schema"
)

// The host-write route: where the device offers memory that is both
// device-local and host-visible (its memory seen through a PCI BAR), the
// host's cores can store an upload straight into device memory, with no
// copy command and no submission. Stores to such memory are posted and
// write-combined, so each writer ends with a locked (fencing) operation,
// which drains its write-combining buffers, and then loads the last word
// it wrote back from the device: on PCI Express a read is not passed by
// writes posted before it, so when the load returns the writer's data has
// landed in device memory. Every upload is also checked in full by the
// device (a copy of the buffer back into host memory, outside the timed
// region).

// writeRoute names the route in paths: the host's cores ("cpu") store
// into device-local memory the host maps (deviceMapped); writeWaitCheck
// names how a 1 MiB upload's end is known (each writer's read back).
const (
	writeRoute     = "write.cpu"
	deviceMapped   = "device-mapped"
	writeWaitCheck = "read-back"
	// writePathBulk is the host-write route's bulk path.
	writePathBulk = transferPathPrefix + writeRoute + "." + deviceMapped
)

// writeMapped stores src into dst (mapped device memory of the same
// length) from parts goroutines, each storing a contiguous range, fencing
// and loading its last word back. A load that does not return what was
// stored is an error wrapping ErrCheckFailed.
func writeMapped(dst, src []uint32, parts int) error {
	parts = max(1, min(parts, len(src)))
	if parts == 1 {
		var fence atomic.Uint32
		return writeRange(dst, src, &fence)
	}
	errs := make([]error, parts)
	var wg sync.WaitGroup
	var fence atomic.Uint32
	n := len(src)
	for p := range parts {
		lo, hi := p*n/parts, (p+1)*n/parts
		wg.Go(func() { errs[p] = writeRange(dst[lo:hi], src[lo:hi], &fence) })
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// writeRange is one writer of writeMapped; fence is the writers' shared
// counter.
func writeRange(dst, src []uint32, fence *atomic.Uint32) error {
	copy(dst, src)
	fence.Add(1) // a locked instruction: drains the write-combining buffers
	last := len(dst) - 1
	if got := atomic.LoadUint32(&dst[last]); got != src[last] {
		return fmt.Errorf("mapped device memory read back %#08x, want %#08x: %w", got, src[last], vulkan.ErrCheckFailed)
	}
	return nil
}

// hostWrite is the bulk candidate of host writes into device-mapped
// memory: n bytes per round from parts goroutines, every round read back
// by the device and checked. It only uploads.
type hostWrite struct {
	dst, back *vulkan.Buffer
	read      *vulkan.Commands
	src       []uint32
	parts     int
	round     uint32
	checked   uint64
	tamper    func(string, []byte)
}

// newHostWrite makes a hostWrite for n-byte uploads; without device-mapped
// memory (or room in it) it returns an error wrapping ErrNoHostMemory. On
// error nothing is left behind.
func newHostWrite(d *vulkan.Device, n uint64, tamper func(string, []byte)) (*hostWrite, error) {
	w := &hostWrite{src: make([]uint32, n/4), parts: runtime.GOMAXPROCS(0), tamper: tamper}
	err := w.create(d, n)
	if err != nil {
		w.release()
		return nil, err
	}
	return w, nil
}

func (w *hostWrite) create(d *vulkan.Device, n uint64) error {
	var err error
	if w.dst, err = d.NewDeviceMappedBuffer(n); err != nil {
		return err
	}
	if w.back, _, err = d.NewMappedBuffer(n, true); err != nil {
		return err
	}
	if w.read, err = d.NewCommands(); err != nil {
		return err
	}
	return w.read.Record(func(cb vk.CommandBuffer) { copyAfterTransfers(cb, w.dst, w.back, 0) })
}

func (w *hostWrite) release() {
	w.read.Release()
	w.back.Release()
	w.dst.Release()
}

func (w *hostWrite) paths() (up, down Candidate) {
	return Candidate{Path: writePathBulk, Timing: schema.TimingHostWallClock}, Candidate{}
}

func (w *hostWrite) warmOnce() error { return writeMapped(w.dst.Words(), w.src, w.parts) }
func (w *hostWrite) words() uint64   { return w.checked }

// once times the stores of a new pattern, then has the device copy them
// back and compares every word.
func (w *hostWrite) once() (up, down float64, err error) {
	w.round++
	fillPattern(w.src, w.round)
	start := time.Now()
	if err := writeMapped(w.dst.Words(), w.src, w.parts); err != nil {
		return 0, 0, err
	}
	up = time.Since(start).Seconds()
	words := w.back.Words()
	fillWord(words, poisonWord)
	if _, err := w.read.Submit(); err != nil {
		return 0, 0, fmt.Errorf("read back: %w", err)
	}
	if w.tamper != nil {
		w.tamper("transfer", w.back.Bytes())
	}
	if err := checkPattern(words, w.round); err != nil {
		return 0, 0, fmt.Errorf("round %d, written by the host and copied back: %w", w.round, err)
	}
	w.checked += uint64(len(words))
	return up, 0, nil
}

// writePath names a 1 MiB host-write upload method with parts writers.
func writePath(prefix string, parts int) string {
	return prefix + writeRoute + "-" + strconv.Itoa(parts) + "." + deviceMapped + "." + writeWaitCheck
}

// writers is a pool of goroutines that store the ranges of one upload at
// once. Waking a parked goroutine can take longer than storing 1 MiB, so
// the pool is armed before the clock starts: its goroutines then spin,
// ready, until it is disarmed after the upload. The caller's goroutine is
// writer 0; the pool holds the others.
type writers struct {
	n        int
	wake     chan struct{}
	quit     chan struct{}
	armed    atomic.Bool
	ready    atomic.Int32  // pool writers spinning, ready for a job
	start    atomic.Uint64 // bumped to hand the writers a job
	done     atomic.Int32  // pool writers that finished the current job
	dst, src []uint32      // the current job, set before start is bumped
	errs     []error
	fence    atomic.Uint32
	wg       sync.WaitGroup
}

// newWriters starts a pool for n writers in all (n-1 goroutines, parked).
// Close it when done.
func newWriters(n int) *writers {
	w := &writers{n: n, wake: make(chan struct{}, n), quit: make(chan struct{}), errs: make([]error, n)}
	for i := 1; i < n; i++ {
		w.wg.Go(func() { w.worker(i) })
	}
	return w
}

// worker is writer i: parked until woken, then ready for jobs until the
// pool is disarmed.
func (w *writers) worker(i int) {
	for {
		select {
		case <-w.wake:
		case <-w.quit:
			return
		}
		seen := w.start.Load()
		w.ready.Add(1)
		for w.armed.Load() {
			if g := w.start.Load(); g != seen {
				seen = g
				w.errs[i] = w.part(i)
				w.done.Add(1)
			}
		}
		w.ready.Add(-1)
	}
}

// part stores writer i's range of the current job.
func (w *writers) part(i int) error {
	n := len(w.src)
	lo, hi := i*n/w.n, (i+1)*n/w.n
	if lo == hi {
		return nil
	}
	return writeRange(w.dst[lo:hi], w.src[lo:hi], &w.fence)
}

// arm wakes the pool's writers and returns once every one is ready.
func (w *writers) arm() {
	w.ready.Store(0)
	w.armed.Store(true)
	for i := 1; i < w.n; i++ {
		w.wake <- struct{}{}
	}
	for w.ready.Load() < int32(w.n-1) {
	}
}

// write stores src into dst (see writeMapped) with every writer of an
// armed pool.
func (w *writers) write(dst, src []uint32) error {
	w.dst, w.src = dst, src
	w.done.Store(0)
	w.start.Add(1)
	w.errs[0] = w.part(0)
	for w.done.Load() < int32(w.n-1) {
	}
	for _, err := range w.errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// disarm parks the writers again and returns once every one has stopped
// spinning.
func (w *writers) disarm() {
	w.armed.Store(false)
	for w.ready.Load() > 0 {
	}
}

// close stops the pool's goroutines. Safe on nil.
func (w *writers) close() {
	if w == nil {
		return
	}
	w.disarm()
	close(w.quit)
	w.wg.Wait()
}

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

// The host-write route: host cores store into device-local, host-visible
// memory; each writer fences and reads its last word back, which writes
// posted before it cannot pass.

// The host-write route's names in paths.
const (
	writeRoute     = "write.cpu"
	deviceMapped   = "device-mapped"
	writeWaitCheck = "read-back"
	writePathBulk  = transferPathPrefix + writeRoute + "." + deviceMapped
)

// writeMapped stores src into mapped dst from parts goroutines; a word that
// does not read back is an error wrapping ErrCheckFailed.
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

func writeRange(dst, src []uint32, fence *atomic.Uint32) error {
	copy(dst, src)
	fence.Add(1) // a locked instruction: drains the write-combining buffers
	last := len(dst) - 1
	if got := atomic.LoadUint32(&dst[last]); got != src[last] {
		return fmt.Errorf("mapped device memory read back %#08x, want %#08x: %w", got, src[last], vulkan.ErrCheckFailed)
	}
	return nil
}

// hostWrite is the bulk host-write candidate; it only uploads.
type hostWrite struct {
	dst, back *vulkan.Buffer
	read      *vulkan.Commands
	src       []uint32
	parts     int
	round     uint32
	checked   uint64
	tamper    func(string, []byte)
}

// newHostWrite makes a hostWrite for n-byte uploads; without room in
// device-mapped memory the error wraps ErrNoHostMemory.
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

// once times the stores of a new pattern, then checks the device's copy back.
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

func writePath(prefix string, parts int) string {
	return prefix + writeRoute + "-" + strconv.Itoa(parts) + "." + deviceMapped + "." + writeWaitCheck
}

// writers is a pool storing one upload's ranges; the caller is writer 0.
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

// newWriters starts a pool of n writers, parked; close it when done.
func newWriters(n int) *writers {
	w := &writers{n: n, wake: make(chan struct{}, n), quit: make(chan struct{}), errs: make([]error, n)}
	for i := 1; i < n; i++ {
		w.wg.Go(func() { w.worker(i) })
	}
	return w
}

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

// write stores src into dst as writeMapped does, with an armed pool.
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

// disarm parks the writers and returns once none spins.
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

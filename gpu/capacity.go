package gpu

import (
	"context"
	"errors"
	"fmt"

	"github.com/cogentcore/webgpu/wgpu"
)

// CapacityOptions says how far MeasureCapacity may allocate.
type CapacityOptions struct {
	// BudgetBytes is the device memory the driver says this process may
	// use (for example VK_EXT_memory_budget's heapBudget of the
	// device-local heap), in bytes; 0 when unknown.
	BudgetBytes uint64
	// Hold, when not nil, receives the chunks held at the end instead of
	// their release, for the memtest to test in place (HeldMemory); it
	// must hold nothing yet.
	Hold *HeldMemory
}

// CapacityResult is how much device memory could be allocated, touched and
// held at once.
type CapacityResult struct {
	// UsableBytes is the total size of the chunks held at once, in bytes.
	UsableBytes uint64
	// Chunks is the number of buffers held at once.
	Chunks int
	// ChunkBytes is the size of the first, largest chunk, in bytes. Later
	// chunks are smaller where a cap or a refusal was near.
	ChunkBytes uint64
	// Limited says why allocation stopped: one of the Limited* constants.
	Limited string
}

// Why MeasureCapacity stopped allocating.
const (
	// LimitedDriverRefused: the driver refused even the smallest chunk.
	LimitedDriverRefused = "driver refused"
	// LimitedBudget: the next chunk would have passed CapacityOptions.BudgetBytes.
	LimitedBudget = "budget"
	// LimitedMemoryLimit: the next chunk would have passed Options.MemoryLimit
	// (or, when that is unset on a software adapter, its 1 GiB default).
	LimitedMemoryLimit = "memory limit"
	// LimitedSlowMemory: even the smallest chunk landed in memory far slower
	// than the chunks before it. Once device memory is full, wgpu's
	// allocator falls back to host memory the device reaches over the bus,
	// which is not VRAM.
	LimitedSlowMemory = "slow memory"
	// LimitedChunkCount: capacityMaxChunks chunks are held.
	LimitedChunkCount = "chunk count"
)

// Sizing and spill detection of the capacity probe.
const (
	// capacityChunkMax caps the first chunk (also capped by the device's
	// buffer limit). A chunk is cleared here and bound by the memtest in
	// parts of at most the storage-binding limit (planIntegrity), so that
	// limit does not apply; but a driver may refuse one allocation of
	// several GiB on an empty device that takes the same bytes in 1 GiB
	// pieces (wgpu on an H200 refuses 4 GiB), and a refusal on the way
	// costs a round trip: 1 GiB chunks.
	capacityChunkMax = 1 << 30
	// capacityShrink: after a refusal the chunk halves, down to the first
	// chunk over capacityShrink (and not below capacityLeastChunk).
	capacityShrink     = 16
	capacityLeastChunk = 1 << 20
	// capacityMaxChunks bounds the loop on a device that never refuses.
	capacityMaxChunks = 1 << 14
	// A chunk is slow when clearing it takes more than spillRatio times
	// what the fastest chunk so far would take, plus spillSlackS for fixed
	// costs; it is timed twice before it is called slow.
	spillRatio  = 4
	spillSlackS = 1e-3
)

// MeasureCapacity allocates device-local storage buffers in chunks until
// the driver refuses, a chunk lands in slow memory, or the next chunk would
// pass the cap: the smaller of opts.BudgetBytes and Options.MemoryLimit
// when set (on a software adapter without a MemoryLimit, 1 GiB). Each
// chunk is cleared, timed, so its memory is really there. All chunks are
// released at once before it returns, unless opts.Hold takes them over
// (released there on every path that fails). Out-of-memory errors are caught in
// error scopes (wgpu_gap.go), so a refusal is an outcome and the device
// stays usable.
func MeasureCapacity(ctx context.Context, d *Device, opts CapacityOptions) (CapacityResult, error) {
	if err := d.alive(); err != nil {
		return CapacityResult{}, err
	}
	return measureCapacity(ctx, newCapacityRun(d, opts))
}

// measureCapacity is MeasureCapacity with the run given, so that tests
// can stand in for the driver or the clock.
func measureCapacity(ctx context.Context, r *capacityRun) (CapacityResult, error) {
	d := r.d
	defer r.release()
	d.progress("capacity: allocating chunks of %d MiB", r.first>>20)
	why, err := r.fill(ctx)
	if err != nil {
		return CapacityResult{}, fmt.Errorf("capacity: %w", err)
	}
	res := CapacityResult{UsableBytes: r.total, Chunks: len(r.held), ChunkBytes: r.first, Limited: why}
	if res.UsableBytes == 0 {
		return CapacityResult{}, fmt.Errorf("capacity: not even a %d-byte chunk could be allocated (%s)", r.least, why)
	}
	if err := r.handOver(); err != nil {
		return CapacityResult{}, fmt.Errorf("capacity: %w", err)
	}
	d.progress("capacity: %d MiB in %d chunks (%s)", res.UsableBytes>>20, res.Chunks, why)
	return res, nil
}

// capacityCap is the most MeasureCapacity may hold and the Limited reason
// for reaching it; 0 when only the driver limits it.
func capacityCap(memoryLimit uint64, software bool, budget uint64) (uint64, string) {
	if memoryLimit == 0 && software {
		memoryLimit = softwareMemoryLimit
	}
	switch {
	case budget > 0 && (memoryLimit == 0 || budget <= memoryLimit):
		return budget, LimitedBudget
	case memoryLimit > 0:
		return memoryLimit, LimitedMemoryLimit
	}
	return 0, ""
}

// capacityChunks is the first chunk's size (capacityChunkMax, the device's
// buffer limit and the cap, whichever is least, in whole 256-byte units)
// and the least chunk a refusal may halve it to.
func capacityChunks(l Limits, cap uint64) (first, least uint64) {
	first = min(capacityChunkMax, l.MaxBufferBytes)
	if cap > 0 {
		first = min(first, cap)
	}
	first &^= 255
	least = min(first, max(first/capacityShrink, capacityLeastChunk))
	return first, least
}

// isSlow reports whether clearing size bytes in t seconds is slow next to
// the fastest clear so far, in bytes/s (0: none yet).
func isSlow(size uint64, t, fastest float64) bool {
	return fastest > 0 && t > spillRatio*float64(size)/fastest+spillSlackS
}

// capacityRun holds the chunks of one MeasureCapacity. alloc and touch
// are fields so that tests can stand in for a driver that refuses or for
// slow memory.
type capacityRun struct {
	d            *Device
	cap          uint64
	capReason    string
	first, least uint64
	hold         *HeldMemory // nil: release the chunks at the end
	// alloc creates a chunk, or returns an error wrapping ErrOutOfMemory.
	alloc func(size uint64) (*wgpu.Buffer, error)
	// touch clears a chunk and returns how long that took, in seconds.
	touch func(b *wgpu.Buffer, size uint64) (float64, error)

	held    []*wgpu.Buffer
	sizes   []uint64 // of each held chunk, in bytes
	total   uint64
	fastest float64 // bytes/s of the fastest clear so far
}

// newCapacityRun sizes a run on d within opts.
func newCapacityRun(d *Device, opts CapacityOptions) *capacityRun {
	r := &capacityRun{d: d, hold: opts.Hold}
	r.cap, r.capReason = capacityCap(d.opts.MemoryLimit, d.info.Software, opts.BudgetBytes)
	r.first, r.least = capacityChunks(d.limits, r.cap)
	r.alloc, r.touch = r.allocChunk, r.clearChunk
	return r
}

// fill allocates chunks until something stops it and says what did. A
// refusal or a slow chunk halves the chunk size, down to r.least.
func (r *capacityRun) fill(ctx context.Context) (string, error) {
	size := r.first
	for {
		if err := ctx.Err(); err != nil {
			return "", err
		}
		if len(r.held) >= capacityMaxChunks {
			return LimitedChunkCount, nil
		}
		if r.cap > 0 {
			left := (r.cap - r.total) &^ 255
			if left < r.least || left == 0 {
				return r.capReason, nil
			}
			size = min(size, left)
		}
		why, err := r.grow(size)
		if err != nil {
			return "", err
		}
		if why != "" {
			if size/2 < r.least {
				return why, nil
			}
			size /= 2
		}
	}
}

// grow adds one chunk of size bytes. It returns why not, LimitedDriverRefused
// or LimitedSlowMemory, when the chunk was refused or slow (and released).
func (r *capacityRun) grow(size uint64) (string, error) {
	b, err := r.alloc(size)
	if errors.Is(err, ErrOutOfMemory) {
		return LimitedDriverRefused, nil
	}
	if err != nil {
		return "", err
	}
	slow, err := r.touchChunk(b, size)
	if err != nil || slow {
		b.Release()
		return LimitedSlowMemory, err
	}
	r.held, r.sizes = append(r.held, b), append(r.sizes, size)
	r.total += size
	return "", nil
}

// touchChunk clears b, timed; a slow clear is timed once more before the
// chunk is called slow (the first touch of memory may pay page faults).
func (r *capacityRun) touchChunk(b *wgpu.Buffer, size uint64) (bool, error) {
	for try := 0; try < 2; try++ {
		t, err := r.touch(b, size)
		if err != nil {
			return false, err
		}
		if !isSlow(size, t, r.fastest) {
			r.fastest = max(r.fastest, float64(size)/t)
			return false, nil
		}
	}
	return true, nil
}

// allocChunk creates a storage buffer inside error scopes, so that the
// driver's refusal comes back as ErrOutOfMemory.
func (r *capacityRun) allocChunk(size uint64) (*wgpu.Buffer, error) {
	return r.d.scopedBuffer("capacity", size, wgpu.BufferUsageStorage|wgpu.BufferUsageCopyDst)
}

// clearChunk clears b by the device's timing method.
func (r *capacityRun) clearChunk(b *wgpu.Buffer, size uint64) (float64, error) {
	return r.d.timeWork(func(enc *wgpu.CommandEncoder) error {
		if err := enc.ClearBuffer(b, 0, size); err != nil {
			return fmt.Errorf("webgpu: ClearBuffer (%d bytes): %w", size, err)
		}
		return nil
	})
}

// release frees every chunk at once and waits for the device to let their
// memory go. Safe twice.
func (r *capacityRun) release() error {
	if len(r.held) == 0 {
		return nil
	}
	for _, b := range r.held {
		b.Release()
	}
	r.held, r.sizes, r.total = nil, nil, 0
	return r.d.submitWait()
}

// handOver moves the chunks to r.hold, or releases them without one.
func (r *capacityRun) handOver() error {
	if r.hold == nil {
		return r.release()
	}
	if err := r.hold.hold(r.d, r.held, r.sizes); err != nil {
		return err
	}
	r.held, r.sizes, r.total = nil, nil, 0
	return nil
}

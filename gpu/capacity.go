package gpu

import (
	"context"
	"errors"
	"fmt"

	"github.com/cogentcore/webgpu/wgpu"
)

// CapacityOptions says how far MeasureCapacity may allocate.
type CapacityOptions struct {
	BudgetBytes uint64      // the memory the driver says this process may use; 0 when unknown
	Hold        *HeldMemory // when not nil and empty, receives the chunks instead of their release
}

// CapacityResult is how much device memory could be held at once.
type CapacityResult struct {
	UsableBytes uint64 // the chunks held at once
	Chunks      int
	ChunkBytes  uint64 // the first, largest chunk
	Limited     string // one of the Limited* constants
}

// Why MeasureCapacity stopped allocating.
const (
	LimitedDriverRefused = "driver refused" // even the smallest chunk
	LimitedBudget        = "budget"         // CapacityOptions.BudgetBytes
	LimitedMemoryLimit   = "memory limit"   // Options.MemoryLimit, 1 GiB on a software adapter when unset
	LimitedSlowMemory    = "slow memory"    // even the smallest chunk cleared far slower than the fastest
	LimitedChunkCount    = "chunk count"    // capacityMaxChunks chunks
)

const (
	capacityChunkMax   = 1 << 30
	capacityShrink     = 16 // a refused chunk halves down to the first over this
	capacityLeastChunk = 1 << 20
	capacityMaxChunks  = 1 << 14
	spillRatio         = 4 // see isSlow
	spillSlackS        = 1e-3
)

// MeasureCapacity allocates device-local chunks, each cleared and timed,
// until the driver refuses, a chunk is slow, or the next would pass a cap
// (LimitedBudget, LimitedMemoryLimit). A refusal leaves the device usable.
// The chunks are released unless opts.Hold takes them.
func MeasureCapacity(ctx context.Context, d *Device, opts CapacityOptions) (CapacityResult, error) {
	if err := d.alive(); err != nil {
		return CapacityResult{}, err
	}
	return measureCapacity(ctx, newCapacityRun(d, opts))
}

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

// capacityCap is the most MeasureCapacity may hold and the Limited reason;
// 0 when only the driver limits it.
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

func capacityChunks(l Limits, cap uint64) (first, least uint64) {
	first = min(capacityChunkMax, l.MaxBufferBytes)
	if cap > 0 {
		first = min(first, cap)
	}
	first &^= 255
	least = min(first, max(first/capacityShrink, capacityLeastChunk))
	return first, least
}

// isSlow reports whether a clear of t seconds took over spillRatio times
// the fastest rate's time plus spillSlackS; fastest 0 is none yet.
func isSlow(size uint64, t, fastest float64) bool {
	return fastest > 0 && t > spillRatio*float64(size)/fastest+spillSlackS
}

// capacityRun is one MeasureCapacity; tests replace alloc and touch.
type capacityRun struct {
	d            *Device
	cap          uint64
	capReason    string
	first, least uint64
	hold         *HeldMemory
	alloc        func(size uint64) (*wgpu.Buffer, error)            // may wrap ErrOutOfMemory
	touch        func(b *wgpu.Buffer, size uint64) (float64, error) // seconds

	held    []*wgpu.Buffer
	sizes   []uint64
	total   uint64
	fastest float64 // bytes/s
}

func newCapacityRun(d *Device, opts CapacityOptions) *capacityRun {
	r := &capacityRun{d: d, hold: opts.Hold}
	r.cap, r.capReason = capacityCap(d.opts.MemoryLimit, d.info.Software, opts.BudgetBytes)
	r.first, r.least = capacityChunks(d.limits, r.cap)
	r.alloc, r.touch = r.allocChunk, r.clearChunk
	return r
}

// fill allocates chunks until something stops it and says what did.
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

// grow adds one chunk, or says why not.
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

// touchChunk times a slow clear twice before calling the chunk slow.
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

func (r *capacityRun) allocChunk(size uint64) (*wgpu.Buffer, error) {
	return r.d.scopedBuffer("capacity", size, wgpu.BufferUsageStorage|wgpu.BufferUsageCopyDst)
}

func (r *capacityRun) clearChunk(b *wgpu.Buffer, size uint64) (float64, error) {
	return r.d.timeWork(func(enc *wgpu.CommandEncoder) error {
		if err := enc.ClearBuffer(b, 0, size); err != nil {
			return fmt.Errorf("webgpu: ClearBuffer (%d bytes): %w", size, err)
		}
		return nil
	})
}

// release frees every chunk and waits for the device. Safe twice.
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

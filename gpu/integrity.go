package gpu

import (
	"context"
	"time"
)

// IntegrityOptions says how much device memory MeasureIntegrity tests.
type IntegrityOptions struct {
	// TargetBytes is how many bytes of device memory to cover, rounded down
	// to whole 16-byte elements. Callers pass at least 95 % of the measured
	// usable VRAM, and open the device with an Options.MemoryLimit that
	// allows it. Zero means as much as the device's memory limit allows.
	TargetBytes uint64
	// Passes is how many times the whole pattern table runs; 0 means 1.
	// Each pass uses a new walking offset and random seed.
	Passes int
	// Progress, when not nil, is called after each step with the bytes the
	// patterns have moved so far and the bytes they will move in all.
	Progress func(done, total uint64)
	// Held, when it holds chunks of this device (the capacity probe's,
	// HeldMemory), is where the region lies: over the chunks in their
	// order, each bound in parts of at most the chunk size. The chunks the
	// region does not reach are released first; see planIntegrity for
	// the one it reaches last.
	Held *HeldMemory

	// inject, when not nil, is called after each pattern's fill and before
	// its first verify; the words it returns are corrupted on the GPU. Tests
	// only.
	inject func(pattern string) []integrityFault
	// chunkBytes, when not zero, overrides the chunk size. Tests only.
	chunkBytes uint64
}

// integrityFault is one word the injection hook corrupts: word Word (a
// 32-bit word index within the chunk) of chunk Chunk is XORed with Flip.
type integrityFault struct {
	Chunk int
	Word  uint64
	Flip  uint32
}

// IntegrityError is one mismatching word a verify step saw.
type IntegrityError struct {
	// Pattern names the row of IntegrityPatterns whose verify saw it.
	Pattern string
	// Chunk is the chunk's number, 0-based; chunks are laid out in order
	// over the tested region, each at most IntegrityResult.ChunkBytes long.
	Chunk int
	// WordIndex is the 32-bit word's index within its chunk (its byte
	// offset in the chunk over 4).
	WordIndex uint64
	// Expected is the value the pattern wrote; Actual the value read back.
	Expected, Actual uint32
}

// IntegrityResult is what the integrity probe saw.
type IntegrityResult struct {
	// Errors counts mismatching words over all verify steps of all passes.
	// A word that is wrong in several steps counts once in each.
	Errors uint64
	// BytesTested is the size of the region covered, in bytes: every verify
	// step of every pass proved (by the GPU's own count) that it checked
	// every element of it.
	BytesTested uint64
	// ChunkBytes is the size of the largest chunk, in bytes.
	ChunkBytes uint64
	// Chunks is how many chunks (storage-buffer bindings) the region was
	// split into; all were held at once.
	Chunks int
	// Passes is how many times the pattern table ran.
	Passes int
	// Patterns names the rows of IntegrityPatterns that ran, in order.
	Patterns []string
	// FirstErrors are the first mismatches recorded, at most
	// MaxIntegrityErrors, in step order and within a step by chunk and word.
	FirstErrors []IntegrityError
	// Duration is the time the patterns' steps took on the host's monotonic
	// clock, from the first step's submission to the last step's status
	// read-back. Allocation, release, compilation and the warm-up fills are
	// outside it.
	Duration time.Duration
	// Elapsed is the whole call, allocation, compilation and warm-up
	// included.
	Elapsed time.Duration
	// BytesMoved is what the patterns read and wrote by the table:
	// BytesPerWord summed over the patterns, times the words tested, times
	// the passes.
	BytesMoved uint64
	// BytesPerS is BytesMoved over Duration, in bytes/s (decimal): compare
	// it with the copy bandwidth of MeasureBandwidthKernels.
	BytesPerS float64
}

// MaxIntegrityErrors is the most mismatches IntegrityResult.FirstErrors
// keeps (and the most one verify step records on the GPU).
const MaxIntegrityErrors = 16

// Sizing and pacing of the integrity probe.
const (
	// maxChunkBytes caps a chunk (also capped by the device's storage
	// binding and buffer limits).
	maxChunkBytes = 1 << 30
	// integrityAlign is WebGPU's default storage-buffer offset alignment,
	// which Open keeps: chunk sizes are multiples of it, so a part of a
	// held buffer starts at a bindable offset.
	integrityAlign = 256
	// integrityElement is the bytes of one element: a vec4<u32>.
	integrityElement = 16
	// integrityPerInvocation is how many elements one invocation handles.
	integrityPerInvocation = 4
	// The status layout of integrity.wgsl, in u32 words: the claim counter,
	// records from integrityRecords, per-chunk counters from
	// integrityCounts, integrityPerChunk words (errors, then the shards of
	// the checked count) a chunk. integrityMaxFaults bounds the injection
	// hook; the Step and Chunk uniforms' sizes are in bytes.
	integrityRecords    = 4
	integrityCounts     = integrityRecords + 4*MaxIntegrityErrors
	integrityShards     = 32
	integrityPerChunk   = 1 + integrityShards
	integrityMaxFaults  = 64
	integrityStepBytes  = 32 // the Step uniform
	integrityChunkBytes = 16 // the Chunk uniform
)

// MeasureIntegrity tests TargetBytes of device memory with the patterns of
// IntegrityPatterns, Passes times. It holds the whole region at once in
// chunks (the device's storage-binding limit or 1 GiB, whichever is
// smaller): parts of the buffers o.Held holds, else buffers it allocates.
// It fills the region and keeps the device busy for a warm-up, then runs
// every pattern's steps over all chunks, each step one submission. Every check runs on the GPU; only a small status buffer is
// read back per verify step. Memory errors are counted in the result, not
// returned; an error wrapping ErrCheckFailed means the kernels themselves
// misbehaved (an element left unverified, a recorded expected value that
// disagrees with the CPU reference). Everything allocated is released before
// it returns.
func MeasureIntegrity(ctx context.Context, d *Device, o IntegrityOptions) (IntegrityResult, error) {
	start := time.Now()
	if err := d.alive(); err != nil {
		return IntegrityResult{}, err
	}
	held, err := o.Held.sizesOn(d)
	if err != nil {
		return IntegrityResult{}, err
	}
	plan, err := planIntegrity(d.limits, d.memLimit, o, held)
	if err != nil {
		return IntegrityResult{}, err
	}
	r := &integrityRun{d: d, plan: plan, opts: o, maxPerDim: d.limits.MaxWorkgroupsPerDimension}
	defer r.release()
	r.held, err = o.Held.take(plan.keep)
	r.buffers = append(r.buffers, r.held...)
	if err != nil {
		return IntegrityResult{}, err
	}
	if err := r.setup(); err != nil {
		return IntegrityResult{}, err
	}
	if err := r.prepare(ctx); err != nil {
		return IntegrityResult{}, err
	}
	res, err := r.runPasses(ctx)
	if err != nil {
		return IntegrityResult{}, err
	}
	res.Elapsed = time.Since(start)
	return res, nil
}

// integrityGroups is the number of workgroups a dispatch over n elements
// uses.
func integrityGroups(n uint64) uint32 {
	per := uint64(wgSize * integrityPerInvocation)
	return uint32((n + per - 1) / per)
}
